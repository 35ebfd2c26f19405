# tests of the fixtures area
