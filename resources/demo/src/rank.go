// Ranking the results: a sort with a comparator, the last step of the run.
package main

import "sort"

// rank returns the n largest results by size, ties broken by kind.
func rank(results []result, n int) []result {
	sorted := append([]result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].size != sorted[j].size {
			return sorted[i].size > sorted[j].size
		}
		return sorted[i].kind < sorted[j].kind
	})
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	return sorted
}
