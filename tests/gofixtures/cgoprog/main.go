// Fixture for tst_gopclntab: a Go program that calls C through cgo, linked externally, so the
// binary holds C code before the Go text (runtime.text is not the start of .text).
package main

/*
static int twice(int x) { return 2 * x; }
*/
import "C"

import "fmt"

func half(x int) int { return x / 2 }

func main() { fmt.Println(half(int(C.twice(21)))) }
