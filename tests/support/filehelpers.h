// Reading and writing whole files in tests: fixtures read, mutants and scratch files written.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

#include <cstdint>
#include <vector>

namespace symflame::testing {

/// The file's bytes; empty when it cannot be read.
inline QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The file's bytes as a vector; empty when it cannot be read.
inline std::vector<uint8_t> readFileBytes(const QString& path)
{
    const QByteArray b = readFile(path);
    return std::vector<uint8_t>(b.begin(), b.end());
}

/// Writes bytes as the whole file (its directory made first); false when it cannot.
inline bool writeFile(const QString& path, QByteArrayView bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes.data(), bytes.size()) == bytes.size();
}

/// As readFile and writeFile, for files a test cannot go on without: failing ends the run with a
/// message naming the file.
inline QByteArray mustReadFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}
inline void mustWriteFile(const QString& path, QByteArrayView bytes)
{
    if (!writeFile(path, bytes))
        qFatal("cannot write %s", qPrintable(path));
}

} // namespace symflame::testing
