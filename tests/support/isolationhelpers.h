// What the isolation tests expect when the worker that reads a debug file crashes: the signal it
// died of. In an AddressSanitizer build too: the worker is started with the sanitizer's handling
// of deadly signals off (symbolize/isolation/isolatedengine.cpp), so that a parser's crash reads the same in
// every build and is not counted as a sanitizer report of the test suite.
#pragma once

#include <QString>

namespace symtest {

/// What the status says a reader died of when it crashed on a bad file.
inline QString crashCause()
{
    return QStringLiteral("crashed (SIGSEGV)");
}

/// Whether message is the one of a reader that crashed on path.
inline bool isCrashMessage(const QString& message, const QString& path)
{
    return message == QStringLiteral("debug info reader crashed (SIGSEGV) on %1; other binaries unaffected").arg(path);
}

} // namespace symtest
