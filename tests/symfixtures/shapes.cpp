// Fixture for the symbolize tests: a shared library at -O2 -g with inlined helpers, a static
// function, a template and an extern "C" entry point.
#include "shapes.h"

#include <cmath>
#include <numeric>

namespace shapes {

namespace {

inline double cross(const Point& a, const Point& b)
{
    return a.x * b.y - a.y * b.x;
}

inline double distance(const Point& a, const Point& b)
{
    const double dx = a.x - b.x, dy = a.y - b.y;
    return std::sqrt(dx * dx + dy * dy);
}

template <typename F>
double aroundTheEdges(const std::vector<Point>& pts, F f)
{
    double sum = 0;
    for (size_t i = 0; i < pts.size(); ++i)
        sum += f(pts[i], pts[(i + 1) % pts.size()]);
    return sum;
}

} // namespace

double Polygon::area() const
{
    return std::fabs(aroundTheEdges(m_points, [](const Point& a, const Point& b) { return cross(a, b); })) / 2;
}

double Polygon::perimeter() const
{
    return aroundTheEdges(m_points, [](const Point& a, const Point& b) { return distance(a, b); });
}

Polygon regular(int n, double radius)
{
    std::vector<Point> pts;
    pts.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const double a = 2 * M_PI * i / n;
        pts.push_back(Point{radius * std::cos(a), radius * std::sin(a)});
    }
    return Polygon(std::move(pts));
}

double totalArea(int n)
{
    double total = 0;
    for (int k = 3; k <= n; ++k)
        total += regular(k, 1.0 + k).area() + regular(k, 0.5).perimeter();
    return total;
}

} // namespace shapes

static int mix(int h, int v)
{
    h ^= v + 0x9e3779b9 + (h << 6) + (h >> 2);
    return h;
}

extern "C" int shapes_checksum(const int* values, int count)
{
    int h = 17;
    for (int i = 0; i < count; ++i)
        h = mix(h, values[i]);
    return h;
}
