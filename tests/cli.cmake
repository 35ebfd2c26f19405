# tests of the cli area
