// Command workload is symflame's demo program: a small "service" that, for a few seconds,
// answers in-process HTTP requests for a JSON catalogue, renders Mandelbrot tiles to PNG,
// compresses and indexes a generated log, and ranks the results. Each subsystem has its own
// shape in the flame graph: encoding/json reflection, a tight float loop, compress/flate,
// regexp, sort and crypto/sha256, spread over a pool of goroutines.
//
// It writes a CPU profile with runtime/pprof:
//
//	workload -cpuprofile demo-cpu.pb.gz [-cpu 4s] [-timeout 60s] [-workers 3]
//
// It stops once the process has used -cpu of CPU time, so a busy machine still gets a
// profile with as many samples; -timeout bounds the wall time.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

// job is one unit of work handed to a worker.
type job struct {
	kind int
	seed int64
}

const (
	jobCatalogue = iota
	jobFractal
	jobLogs
	jobKinds
)

// result is what a job reports back: a digest of its output, and its size.
type result struct {
	kind   int
	digest [32]byte
	size   int
}

func worker(jobs <-chan job, results chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		switch j.kind {
		case jobCatalogue:
			results <- serveCatalogue(j.seed)
		case jobFractal:
			results <- renderTile(j.seed)
		case jobLogs:
			results <- indexLogs(j.seed)
		}
	}
}

// cpuUsed is the user and system CPU time the process has used so far.
func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	budget := flag.Duration("cpu", 4*time.Second, "how much CPU time to use")
	timeout := flag.Duration("timeout", 60*time.Second, "wall-clock limit")
	workers := flag.Int("workers", 3, "number of worker goroutines")
	flag.Parse()

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}

	jobs := make(chan job)
	results := make(chan result, 16)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go worker(jobs, results, &wg)
	}

	var collected []result
	done := make(chan struct{})
	go func() {
		for r := range results {
			collected = append(collected, r)
		}
		close(done)
	}()

	deadline := time.Now().Add(*timeout)
	for n := int64(0); cpuUsed() < *budget && time.Now().Before(deadline); n++ {
		jobs <- job{kind: int(n % jobKinds), seed: n}
	}
	close(jobs)
	wg.Wait()
	close(results)
	<-done

	top := rank(collected, 5)
	fmt.Printf("%d jobs; largest outputs:", len(collected))
	for _, r := range top {
		fmt.Printf(" %d:%dB", r.kind, r.size)
	}
	fmt.Println()
}
