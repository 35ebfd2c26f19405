#include "filters.h"

#include <algorithm>

namespace demo {

namespace {

// One row (or column, with stride) blurred into out: a running sum over the window.
void blurLine(const float* in, float* out, int n, int stride, int radius)
{
    float sum = 0;
    int count = 0;
    for (int i = 0; i < std::min(radius, n); ++i, ++count)
        sum += in[i * stride];
    for (int i = 0; i < n; ++i) {
        if (i + radius < n) {
            sum += in[(i + radius) * stride];
            ++count;
        }
        if (i - radius - 1 >= 0) {
            sum -= in[(i - radius - 1) * stride];
            --count;
        }
        out[i * stride] = sum / float(count);
    }
}

} // namespace

void boxBlur(Image& image, int radius)
{
    std::vector<float> tmp(image.pixels.size());
    for (int y = 0; y < image.height; ++y)
        blurLine(&image.pixels[size_t(y) * image.width], &tmp[size_t(y) * image.width], image.width, 1, radius);
    for (int x = 0; x < image.width; ++x)
        blurLine(&tmp[x], &image.pixels[x], image.height, image.width, radius);
}

double sharpness(const Image& image)
{
    double total = 0;
    const int w = image.width;
    for (int y = 1; y + 1 < image.height; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            const float* p = &image.pixels[size_t(y) * w + x];
            const float lap = p[-1] + p[1] + p[-w] + p[w] - 4 * p[0];
            total += double(lap) * lap;
        }
    return total / double(image.pixels.size());
}

std::vector<unsigned char> quantize(const Image& image)
{
    std::vector<unsigned char> out(image.pixels.size());
    std::transform(image.pixels.begin(), image.pixels.end(), out.begin(),
        [](float v) { return static_cast<unsigned char>(std::clamp(v, 0.0f, 1.0f) * 255.0f); });
    return out;
}

} // namespace demo
