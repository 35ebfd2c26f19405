# tests of the calltree area
