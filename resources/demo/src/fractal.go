// The fractal subsystem: renders a Mandelbrot tile (a tight floating-point loop with a small
// inlined helper), colours it and encodes it as PNG (image/png, compress/zlib).
package main

import (
	"bytes"
	"crypto/sha256"
	"image"
	"image/color"
	"image/png"
	"math"
)

// escapeTime is small enough to be inlined into renderRow.
func escapeTime(cr, ci float64, limit int) int {
	zr, zi := 0.0, 0.0
	for n := 0; n < limit; n++ {
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		if zr*zr+zi*zi > 4 {
			return n
		}
	}
	return limit
}

func palette(n, limit int) color.RGBA {
	if n == limit {
		return color.RGBA{0, 0, 0, 255}
	}
	t := math.Sqrt(float64(n) / float64(limit))
	return color.RGBA{uint8(255 * t), uint8(180 * (1 - t)), uint8(255 * (1 - t*t)), 255}
}

func renderRow(img *image.RGBA, y int, x0, y0, scale float64, limit int) {
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		n := escapeTime(x0+float64(x)*scale, y0+float64(y)*scale, limit)
		img.SetRGBA(x, y, palette(n, limit))
	}
}

func renderTile(seed int64) result {
	const size = 160
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	// Zoom towards a point on the boundary, a little further for each seed.
	zoom := math.Pow(0.85, float64(seed%24))
	x0, y0 := -0.7435669-1.5*zoom, 0.1314023-1.5*zoom
	scale := 3 * zoom / size
	for y := 0; y < size; y++ {
		renderRow(img, y, x0, y0, scale, 300)
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return result{kind: jobFractal, digest: sha256.Sum256(buf.Bytes()), size: buf.Len()}
}
