/* Fixture for the symbolize tests: a freestanding program (no libc) that clang compiles for
 * other architectures, so that 32-bit and big-endian ELF files with DWARF are tested. */
static inline int square(int x)
{
    return x * x;
}

__attribute__((noinline)) int sum_squares(const int* v, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += square(v[i]);
    return s;
}

int data[64];

void _start(void)
{
    for (int i = 0; i < 64; ++i)
        data[i] = i * 3;
    data[0] = sum_squares(data, 64);
    for (;;) {
    }
}

void __start(void)
{
    _start();
}
