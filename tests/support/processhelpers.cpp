#include "processhelpers.h"

#include <QDebug>
#include <QProcess>
#include <QProcessEnvironment>

namespace symflame::testing {

QString ProcessResult::describe(const QString& program, const QStringList& args) const
{
    return QStringLiteral("%1 %2: %3 exit %4: %5")
        .arg(program, args.join(QLatin1Char(' ')), started ? QString() : QStringLiteral("not started"))
        .arg(exitCode)
        .arg(QString::fromUtf8(err.left(2000)));
}

QList<QByteArray> ProcessResult::errLines() const
{
    QList<QByteArray> lines = err.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

ProcessResult runProcess(
    const QString& program, const QStringList& args, const QByteArray& input, const ProcessOptions& options)
{
    ProcessResult r;
    QProcess p;
    if (!options.unsetEnv.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& name : options.unsetEnv)
            env.remove(name);
        p.setProcessEnvironment(env);
    }
    p.start(program, args);
    r.started = p.waitForStarted(30000);
    if (!r.started)
        return r;
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    r.finished = p.waitForFinished(options.timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.crashed = r.finished && p.exitStatus() != QProcess::NormalExit;
    r.exitCode = r.finished && !r.crashed ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QString symflameExecutable()
{
    return QStringLiteral(SYMFLAME_EXECUTABLE);
}

ProcessResult runSymflame(const QStringList& args, const ProcessOptions& options)
{
    return runProcess(symflameExecutable(), args, {}, options);
}

QByteArray runSymflame(const QStringList& args, int* exitCode, QByteArray* err)
{
    ProcessResult r = runSymflame(args);
    *exitCode = r.exitCode;
    if (err)
        *err = r.err;
    return r.out;
}

QByteArray runForOutput(const QString& program, const QStringList& args, const QByteArray& input, int timeoutMs)
{
    ProcessOptions options;
    options.timeoutMs = timeoutMs;
    const ProcessResult r = runProcess(program, args, input, options);
    if (!r.started)
        return {};
    if (!r.ok()) {
        qWarning() << program << args << "failed:" << r.err.left(2000);
        return {};
    }
    return r.out;
}

} // namespace symflame::testing
