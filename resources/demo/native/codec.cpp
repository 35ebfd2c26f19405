#include "codec.h"

namespace {

// The length of the run of in[0] (at most 255).
size_t runLength(const unsigned char* in, size_t n)
{
    size_t k = 1;
    while (k < n && k < 255 && in[k] == in[0])
        ++k;
    return k;
}

} // namespace

extern "C" size_t democodec_encode(const unsigned char* in, size_t n, unsigned char* out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const size_t k = runLength(in + i, n - i);
        out[o++] = static_cast<unsigned char>(k);
        out[o++] = in[i];
        i += k;
    }
    return o;
}

extern "C" uint32_t democodec_checksum(const unsigned char* data, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; ++i) {
        a = (a + data[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
