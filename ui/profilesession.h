// ProfileSession: the profile a window shows and the background work on it. Loading a file (a
// big one's preview first), switching sample type or profile, rebuilding the call tree for new
// view options, symbolizing: one job at a time on the thread pool, a new one cancelling the one
// running (whose results are dropped, see JobTracker). Each stage's result is emitted on the GUI
// thread; the session holds no widgets, the main window shows what it emits.
#pragma once

#include "model/analysis/diff.h"
#include "symbolize/pass/symbolizationpass.h"
#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>

namespace symflame::ui {

class ProfileSession : public QObject {
    Q_OBJECT
public:
    /// What a finished job did to the profile shown.
    enum class Change {
        Loaded, ///< another file or another profile of the file
        Rebuilt, ///< the same profile, another sample type or view
        Symbolized, ///< the same profile with names for addresses
        Compared, ///< the profile compared with another (a diff snapshot), or back from that
    };

    explicit ProfileSession(QObject* parent = nullptr);
    ~ProfileSession() override;

    /// Reads path in the background; previewParts as previewPartsFor.
    void open(const QString& path, int64_t previewParts);
    /// Reads the files and merges them into one profile (loadMergedSnapshot); one file is open's.
    void openFiles(const QStringList& paths, int64_t previewParts);
    /// The shown file's profile index, when the file holds several.
    void chooseProfile(std::optional<size_t> index, int64_t previewParts);
    void chooseSampleType(size_t index);
    /// The call tree of the shown profile built for view (rules, direction, recursion).
    void setView(const ViewOptions& view);
    /// Looks up names for the shown profile's addresses with options; false (nothing started)
    /// when the profile as read has no frame to symbolize. Every pass starts from the profile as
    /// read, not from the last pass's result, so each binary's report comes from the current
    /// options (a directory added or removed, a server turned off) and never from an earlier pass.
    bool symbolize(const symbolize::SymbolizeOptions& options);
    /// Compares the profile shown (NEW) with the file at basePath (BASE) in the background: both
    /// symbolized with options first (from the addresses as read), then diffed with diffOptions
    /// (normalized, frames matched by) into a diff snapshot, emitted as Change::Compared.
    void compareWith(const QString& basePath, const symbolize::SymbolizeOptions& options, const model::DiffOptions& diffOptions);
    /// Back to the profile shown before compareWith (its snapshot and report), as Change::Compared.
    void stopComparing();
    bool isComparing() const { return m_snapshot && m_snapshot->isDiff(); }
    /// The BASE file of the comparison shown; empty when none.
    QString basePath() const { return m_basePath; }

    /// Cancels the running job; true when one was running.
    bool cancel();
    bool isBusy() const { return m_jobs.isRunning(); }

    /// Shows snapshot at once (tests); no symbolization report goes with it.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    const std::shared_ptr<const ProfileSnapshot>& snapshot() const { return m_snapshot; }
    /// The file of the snapshot shown (the first, when several were merged); empty when none or
    /// built in memory.
    QString path() const;
    /// The files merged into the snapshot shown: path() alone, or every file of openFiles.
    QStringList files() const;
    /// The last symbolization's report for the profile shown; null before one finished.
    const std::shared_ptr<const symbolize::SymbolizeReport>& report() const { return m_report; }
    /// Per mapping index, where the last symbolization found its debug info (a summary line).
    const QMap<int, QString>& debugSources() const { return m_debugSources; }

signals:
    /// A job started; what says what it does ("Loading x.pb.gz").
    void started(const QString& what);
    /// The running job's progress (0 .. kProgressScale) and stage text (what: stage).
    void progressChanged(int value);
    void stageChanged(const QString& text);
    /// The running job ended (before finished, failed or cancelled is emitted).
    void stopped();
    /// A big profile's preview is the snapshot now; finished follows with the complete tree.
    void previewShown();
    /// A job's snapshot is the one shown now. keepFrom, when not null, is the snapshot it
    /// replaced whose zoom and selection carry over (the same profile's preview, or the profile
    /// before symbolization).
    void finished(Change change, const QString& path, std::shared_ptr<const ProfileSnapshot> keepFrom);
    /// A job failed; message is the one-line reason.
    void failed(const QString& path, const QString& message);
    void cancelled();

private:
    struct Outcome {
        std::shared_ptr<const ProfileSnapshot> snapshot;
        QString error; // empty on success
        QString errorPath; // the file the error is about, when it names one
        bool cancelled = false;
        bool preview = false; ///< a first view of a big profile; the complete one follows
    };
    /// Jobs that load a profile pass the sink on (loadSnapshot); the others ignore it.
    using Job
        = std::function<model::Result<std::shared_ptr<const ProfileSnapshot>>(model::Progress*, const PreviewSink&)>;
    /// What a symbolization job leaves for the session, read once the job has finished.
    struct SymbolizeResult {
        symbolize::SymbolizeReport report;
        QMap<int, QString> debugSources;
    };

    void load(const QString& path, const QString& what, int64_t previewParts, std::optional<size_t> profileIndex);
    /// The unwinder of perf.data DWARF samples, finding binaries as Settings > Symbolization says
    /// (debug and search directories, path maps), read when a load starts.
    static model::PerfStackUnwinderFactory perfUnwinder();
    void start(const QString& path, const QString& what, Change change, Job job, const QStringList& files = {});
    void finish(const QString& path, Change change, const Outcome& outcome, const QStringList& files = {});

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    std::shared_ptr<const model::Profile> m_asRead; ///< m_snapshot's profile before any pass
    bool m_showingPreview = false; ///< m_snapshot is a load's preview
    QStringList m_files; ///< merged into m_snapshot, when more than one
    std::shared_ptr<const symbolize::SymbolizeReport> m_report;
    QMap<int, QString> m_debugSources;
    std::shared_ptr<SymbolizeResult> m_pendingSymbolize; ///< filled by the running symbolization
    std::shared_ptr<SymbolizeResult> m_pendingCompare; ///< NEW's pass of the running comparison
    JobTracker m_jobs { this };
    /// While comparing: what was shown before (restored by stopComparing) and BASE's file.
    std::shared_ptr<const ProfileSnapshot> m_beforeCompare;
    std::shared_ptr<const model::Profile> m_beforeCompareAsRead;
    std::shared_ptr<const symbolize::SymbolizeReport> m_beforeCompareReport;
    QMap<int, QString> m_beforeCompareSources;
    QString m_basePath, m_pendingBasePath;
    model::DiffOptions m_diffOptions; ///< the comparison's
};

} // namespace symflame::ui
