# tests of the pprof area
