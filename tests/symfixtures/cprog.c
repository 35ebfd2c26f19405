/* Fixture for the symbolize tests: a C program at -O2 -g with static inline functions, a
 * recursive function, a qsort comparator, a function GCC clones (.constprop) and a cold path it
 * splits off (.cold). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline unsigned rotl(unsigned x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static inline unsigned hash_step(unsigned h, unsigned char c)
{
    return rotl(h ^ c, 5) * 0x01000193u;
}

static unsigned hash_string(const char* s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = hash_step(h, (unsigned char)*s++);
    return h;
}

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int compare_ints(const void* a, const void* b)
{
    const int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

__attribute__((noinline)) static long scaled_sum(const int* v, int n, int scale)
{
    long s = 0;
    for (int i = 0; i < n; ++i)
        s += (long)v[i] * scale;
    return s;
}

__attribute__((noinline)) static int checked_divide(int a, int b)
{
    if (__builtin_expect(b == 0, 0)) {
        fprintf(stderr, "division of %d by zero\n", a);
        abort();
    }
    return a / b;
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 100;
    int* v = malloc(sizeof(int) * (size_t)n);
    if (!v)
        return 1;
    for (int i = 0; i < n; ++i)
        v[i] = (int)(hash_string(argc > 2 ? argv[2] : "symflame") >> (i % 16)) % 1000;
    qsort(v, (size_t)n, sizeof(int), compare_ints);
    long total = scaled_sum(v, n, 3) + scaled_sum(v, n / 2, 3);
    total += fib(20 + argc);
    total += checked_divide((int)total, argc);
    printf("%ld %u\n", total, hash_string(argv[0]));
    free(v);
    return 0;
}
