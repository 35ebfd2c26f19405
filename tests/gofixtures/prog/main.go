// Fixture for tst_gopclntab: a Go program with small functions the compiler inlines (several
// levels deep), generics, methods, closures and a CPU-bound loop. Run with a path as argument
// it writes a runtime/pprof CPU profile of about a second of work there.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
)

type shape interface{ area() float64 }

type rect struct{ w, h float64 }
type circle struct{ r float64 }

func (r rect) area() float64   { return r.w * r.h }
func (c circle) area() float64 { return 3.14159 * square(c.r) }

func square(x float64) float64 { return x * x }
func cube(x float64) float64   { return square(x) * x }
func poly(x float64) float64   { return cube(x) + square(x) + x }

func sumBy[T any](xs []T, f func(T) float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += f(x)
	}
	return total
}

//go:noinline
func churn(n int) float64 {
	shapes := make([]shape, 0, 64)
	for i := 0; i < 64; i++ {
		if i%2 == 0 {
			shapes = append(shapes, rect{float64(i), float64(i + 1)})
		} else {
			shapes = append(shapes, circle{float64(i)})
		}
	}
	total := 0.0
	for k := 0; k < n; k++ {
		total += sumBy(shapes, func(s shape) float64 { return poly(s.area()) / 1e9 })
	}
	return total
}

//go:noinline
func words(n int) int {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "w%d ", i*7919%1000)
	}
	fields := strings.Fields(b.String())
	sort.Strings(fields)
	return len(fields)
}

func work(deadline time.Time) float64 {
	total := 0.0
	for time.Now().Before(deadline) {
		total += churn(2000)
		total += float64(words(2000))
	}
	return total
}

func main() {
	if len(os.Args) > 1 {
		f, err := os.Create(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		total := work(time.Now().Add(1200 * time.Millisecond))
		pprof.StopCPUProfile()
		f.Close()
		fmt.Println(total > 0)
		return
	}
	fmt.Println(churn(1), words(10))
}
