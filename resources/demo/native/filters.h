// libdemofilters.so: image filters of the native demo (built with debug info).
#pragma once

#include <vector>

namespace demo {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<float> pixels; // row by row, one channel
};

// A box blur of the given radius, in two passes (rows, then columns).
void boxBlur(Image& image, int radius);
// The mean of the squared Laplacian: how sharp the image is.
double sharpness(const Image& image);
// Values quantized to 0..255.
std::vector<unsigned char> quantize(const Image& image);

} // namespace demo
