// The log subsystem: generates a web-server log, gzips and ungzips it (compress/gzip),
// extracts fields with a regular expression (regexp) and counts status codes per path.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand"
	"regexp"
	"sort"
	"strconv"
)

var logLine = regexp.MustCompile(`^(\S+) - - \[([^\]]+)\] "(GET|POST|PUT) (\S+) HTTP/1\.1" (\d{3}) (\d+)$`)

var paths = []string{"/", "/search", "/item/17", "/item/42", "/cart", "/login", "/static/app.js", "/static/logo.png"}

func generateLog(rng *rand.Rand, lines int) []byte {
	var buf bytes.Buffer
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&buf, "10.0.%d.%d - - [02/Dec/2026:10:%02d:%02d +0000] \"%s %s HTTP/1.1\" %d %d\n",
			rng.Intn(256), rng.Intn(256), rng.Intn(60), rng.Intn(60),
			[]string{"GET", "POST", "PUT"}[rng.Intn(3)], paths[rng.Intn(len(paths))],
			[]int{200, 200, 200, 304, 404, 500}[rng.Intn(6)], rng.Intn(40000))
	}
	return buf.Bytes()
}

func compressLog(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

type pathStats struct {
	path   string
	hits   int
	errors int
	bytes  int
}

func parseLog(r io.Reader) map[string]*pathStats {
	stats := make(map[string]*pathStats)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := logLine.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		path := string(m[4])
		s := stats[path]
		if s == nil {
			s = &pathStats{path: path}
			stats[path] = s
		}
		s.hits++
		if m[5][0] == '5' || m[5][0] == '4' {
			s.errors++
		}
		n, _ := strconv.Atoi(string(m[6]))
		s.bytes += n
	}
	return stats
}

func indexLogs(seed int64) result {
	rng := rand.New(rand.NewSource(seed))
	compressed := compressLog(generateLog(rng, 3000))
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		panic(err)
	}
	stats := parseLog(zr)
	list := make([]*pathStats, 0, len(stats))
	for _, s := range stats {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].bytes > list[j].bytes })
	h := sha256.New()
	for _, s := range list {
		fmt.Fprintf(h, "%s %d %d %d\n", s.path, s.hits, s.errors, s.bytes)
	}
	var digest [32]byte
	copy(digest[:], h.Sum(nil))
	return result{kind: jobLogs, digest: digest, size: len(compressed)}
}
