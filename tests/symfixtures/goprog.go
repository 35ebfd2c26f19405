// Fixture for the symbolize tests: a small Go program, for its Go build ID note.
package main

import "fmt"

func main() { fmt.Println("symflame") }
