// Running a program from a test: the symflame executable under test, an oracle (`go tool pprof`,
// llvm-symbolizer-19, nm), or any other tool. One way for every test, so that a hang, a crash and
// a failure to start read the same everywhere.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace symflame::testing {

struct ProcessResult {
    bool started = false;
    bool finished = false; ///< false: still running after the timeout (then killed)
    bool crashed = false; ///< ended by a signal
    /// The exit code; -1 when the process did not start, did not finish or crashed.
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    bool ok() const { return started && finished && !crashed && exitCode == 0; }
    /// One line for a failure message: the command and what went wrong.
    QString describe(const QString& program, const QStringList& args) const;
    /// stderr split into lines, without the empty one after the last newline.
    QList<QByteArray> errLines() const;
};

struct ProcessOptions {
    /// Longer than any run of the suite takes; a test's own ctest timeout is usually shorter.
    int timeoutMs = 300000;
    /// Removed from the environment the process inherits.
    QStringList unsetEnv;
};

/// Runs program with args, input written to its stdin (which is then closed), and waits for it.
ProcessResult runProcess(
    const QString& program, const QStringList& args, const QByteArray& input = {}, const ProcessOptions& options = {});

/// The symflame executable the build made (SYMFLAME_EXECUTABLE).
QString symflameExecutable();

/// Runs the symflame executable.
ProcessResult runSymflame(const QStringList& args, const ProcessOptions& options = {});

/// Runs the symflame executable; its stdout, and its exit code in *exitCode (-1 when it did not
/// finish or crashed) and its stderr in *err when given.
QByteArray runSymflame(const QStringList& args, int* exitCode, QByteArray* err = nullptr);

/// Runs program; its stdout, or empty when it failed or did not finish within timeoutMs (the
/// failure is logged with the program's stderr).
QByteArray runForOutput(
    const QString& program, const QStringList& args, const QByteArray& input = {}, int timeoutMs = 300000);

} // namespace symflame::testing
