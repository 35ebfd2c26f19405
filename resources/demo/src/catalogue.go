// The catalogue subsystem: an in-process HTTP handler that decodes a JSON query, filters a
// generated product catalogue and encodes the answer as JSON (net/http + encoding/json).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
)

type product struct {
	ID       int               `json:"id"`
	Name     string            `json:"name"`
	Price    float64           `json:"price"`
	Tags     []string          `json:"tags"`
	Stock    map[string]int    `json:"stock"`
	Attrs    map[string]string `json:"attrs"`
	Featured bool              `json:"featured"`
}

type query struct {
	Tag      string  `json:"tag"`
	MaxPrice float64 `json:"max_price"`
	Limit    int     `json:"limit"`
}

var tagWords = []string{"red", "green", "blue", "steel", "oak", "glass", "small", "large", "eco", "pro"}

func makeCatalogue(rng *rand.Rand, n int) []product {
	out := make([]product, n)
	for i := range out {
		p := &out[i]
		p.ID = i
		p.Name = fmt.Sprintf("item-%d-%s", i, tagWords[rng.Intn(len(tagWords))])
		p.Price = float64(rng.Intn(100000)) / 100
		for t := 0; t < 3; t++ {
			p.Tags = append(p.Tags, tagWords[rng.Intn(len(tagWords))])
		}
		p.Stock = map[string]int{"north": rng.Intn(50), "south": rng.Intn(50)}
		p.Attrs = map[string]string{"colour": tagWords[rng.Intn(3)], "size": tagWords[6+rng.Intn(2)]}
		p.Featured = rng.Intn(7) == 0
	}
	return out
}

// catalogueHandler serves POST /search: the body is a query, the answer the matching products.
func catalogueHandler(catalogue []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var q query
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var all []product
		if err := json.Unmarshal(catalogue, &all); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		matches := filterProducts(all, q)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(matches)
	}
}

func filterProducts(all []product, q query) []product {
	var out []product
	for _, p := range all {
		if p.Price > q.MaxPrice {
			continue
		}
		for _, t := range p.Tags {
			if strings.EqualFold(t, q.Tag) {
				out = append(out, p)
				break
			}
		}
		if len(out) == q.Limit {
			break
		}
	}
	return out
}

func serveCatalogue(seed int64) result {
	rng := rand.New(rand.NewSource(seed))
	catalogue, _ := json.Marshal(makeCatalogue(rng, 600))
	handler := catalogueHandler(catalogue)
	var digest [32]byte
	size := 0
	for i := 0; i < 4; i++ {
		body, _ := json.Marshal(query{Tag: tagWords[rng.Intn(len(tagWords))], MaxPrice: 700, Limit: 200})
		req := httptest.NewRequest(http.MethodPost, "/search", bytes.NewReader(body))
		rec := httptest.NewRecorder()
		handler(rec, req)
		digest = sha256.Sum256(append(digest[:], rec.Body.Bytes()...))
		size += rec.Body.Len()
	}
	return result{kind: jobCatalogue, digest: digest, size: size}
}
