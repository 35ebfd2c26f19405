// Fixture for the symbolize tests: the interface of a small shared library (libsfshapes.so).
#pragma once

#include <cstddef>
#include <vector>

namespace shapes {

struct Point {
    double x = 0, y = 0;
};

class Polygon {
public:
    explicit Polygon(std::vector<Point> pts) : m_points(std::move(pts)) {}
    double area() const;
    double perimeter() const;
    size_t size() const { return m_points.size(); }

private:
    std::vector<Point> m_points;
};

/// Builds a regular polygon with n corners.
Polygon regular(int n, double radius);
/// Sum of the areas of polygons with 3..n corners.
double totalArea(int n);

} // namespace shapes

extern "C" int shapes_checksum(const int* values, int count);
