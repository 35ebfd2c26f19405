// What the isolation tests expect when the worker that reads a debug file crashes: the signal it
// died of, or, when the tests and so the worker are built with AddressSanitizer (the asan preset),
// the sanitizer's summary line (the sanitizer catches the crash, reports it and exits with status
// 1), e.g. "exited with status 1 (SUMMARY: AddressSanitizer: stack-overflow ... in ...)".
#pragma once

#include <QString>

namespace symtest {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedWorker = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedWorker = true;
#else
inline constexpr bool kSanitizedWorker = false;
#endif
#else
inline constexpr bool kSanitizedWorker = false;
#endif

/// "crashed (SIGSEGV)", or in a sanitizer build "exited with status 1 (SUMMARY: AddressSanitizer:
/// <sanitizerKind>" (stack-overflow for the crasher, SEGV for a worker sent SIGSEGV).
inline QString crashCause(const QString& sanitizerKind = QStringLiteral("stack-overflow"))
{
    return kSanitizedWorker ? QStringLiteral("exited with status 1 (SUMMARY: AddressSanitizer: ") + sanitizerKind
                            : QStringLiteral("crashed (SIGSEGV)");
}

/// Whether message is the one of a reader that crashed on path.
inline bool isCrashMessage(
    const QString& message, const QString& path, const QString& sanitizerKind = QStringLiteral("stack-overflow"))
{
    const QString end = QStringLiteral(" on %1; other binaries unaffected").arg(path);
    if (!kSanitizedWorker)
        return message == QStringLiteral("debug info reader crashed (SIGSEGV)") + end;
    return message.startsWith(QStringLiteral("debug info reader ") + crashCause(sanitizerKind))
        && message.endsWith(end);
}

} // namespace symtest
