#include "ui/profilesession.h"

#include "ui/promiseprogress.h"
#include "ui/symbolizesettings.h"

#include "symbolize/pass/dwarfunwinder.h"

#include <map>
#include <QFile>
#include <QFileInfo>
#include <QPromise>

#include <algorithm>
#include <future>

namespace symflame::ui {

using namespace symflame::model;

ProfileSession::ProfileSession(QObject* parent)
    : QObject(parent)
{
}

ProfileSession::~ProfileSession()
{
    // The worker holds no pointer to us; cancelling lets the thread pool wind down quickly.
    m_jobs.cancel();
}

QString ProfileSession::path() const
{
    return m_snapshot ? QString::fromStdString(m_snapshot->path) : QString();
}

QStringList ProfileSession::files() const
{
    if (m_files.size() > 1)
        return m_files;
    const QString p = path();
    return p.isEmpty() ? QStringList() : QStringList { p };
}

void ProfileSession::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    // Another profile: no comparison to go back from.
    m_beforeCompare.reset();
    m_beforeCompareAsRead.reset();
    m_beforeCompareReport.reset();
    m_beforeCompareSources.clear();
    m_basePath.clear();
    m_snapshot = std::move(snapshot);
    m_asRead = m_snapshot ? m_snapshot->sourceProfile() : nullptr;
    m_showingPreview = false;
    m_files.clear();
    m_report.reset();
    m_debugSources.clear();
}

model::PerfStackUnwinderFactory ProfileSession::perfUnwinder()
{
    return symbolize::dwarfUnwinderFactory(LocalDebugSettings::load().toOptions());
}

void ProfileSession::open(const QString& path, int64_t previewParts)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    load(absolute, tr("Loading %1").arg(QFileInfo(absolute).fileName()), previewParts, std::nullopt);
}

void ProfileSession::openFiles(const QStringList& paths, int64_t previewParts)
{
    if (paths.size() == 1) {
        open(paths[0], previewParts);
        return;
    }
    QStringList absolute;
    std::vector<std::string> native;
    for (const QString& p : paths) {
        absolute << QFileInfo(p).absoluteFilePath();
        native.push_back(QFile::encodeName(absolute.back()).toStdString());
    }
    start(
        absolute.value(0), tr("Loading and merging %n files", nullptr, int(paths.size())), Change::Loaded,
        [native, previewParts, unwinder = perfUnwinder()](Progress* progress, const PreviewSink& preview) {
            return loadMergedSnapshot(native, progress, preview, previewParts, unwinder);
        },
        absolute);
}

void ProfileSession::chooseProfile(std::optional<size_t> index, int64_t previewParts)
{
    if (!m_snapshot || index == m_snapshot->profile->profileIndex)
        return;
    load(path(), index ? tr("Loading profile %1").arg(*index) : tr("Loading all profiles"), previewParts, index);
}

void ProfileSession::load(
    const QString& path, const QString& what, int64_t previewParts, std::optional<size_t> profileIndex)
{
    const std::string native = QFile::encodeName(path).toStdString();
    start(path, what, Change::Loaded,
        [native, profileIndex, previewParts, unwinder = perfUnwinder()](Progress* progress, const PreviewSink& preview) {
            return loadSnapshot(native, progress, profileIndex, preview, previewParts, unwinder);
        });
}

void ProfileSession::chooseSampleType(size_t index)
{
    if (!m_snapshot || index == m_snapshot->sampleType)
        return;
    auto snapshot = m_snapshot;
    start(path(), tr("Building the call tree"), Change::Rebuilt,
        [snapshot, index](
            Progress* progress, const PreviewSink&) { return withSampleType(*snapshot, index, progress); });
}

void ProfileSession::setView(const ViewOptions& view)
{
    if (!m_snapshot)
        return;
    auto snapshot = m_snapshot;
    start(path(), tr("Building the call tree"), Change::Rebuilt,
        [snapshot, view](Progress* progress, const PreviewSink&) { return withView(*snapshot, view, progress); });
}

bool ProfileSession::symbolize(const symbolize::SymbolizeOptions& options)
{
    if (!m_snapshot)
        return false;
    if (isComparing()) {
        // Both sides again, with the new options.
        compareWith(m_basePath, options, m_diffOptions);
        return true;
    }
    // The source: the profile as read, before grouping by label (whose frames need no symbols).
    const std::shared_ptr<const Profile> asRead = m_asRead ? m_asRead : m_snapshot->sourceProfile();
    const Profile& profile = *asRead;
    const bool anyToDo = std::any_of(profile.locations.begin(), profile.locations.end(), [&](const Location& l) {
        return l.status == FrameStatus::BinaryOnly || symbolize::isMappableJavaScriptFrame(profile, l);
    });
    if (!anyToDo)
        return false;
    auto snapshot = m_snapshot;
    // The worker fills this; the session reads it only once the job has finished.
    auto result = std::make_shared<SymbolizeResult>();
    m_pendingSymbolize = result;
    start(path(), tr("Symbolizing"), Change::Symbolized,
        [snapshot, asRead, result, options](
            Progress* progress, const PreviewSink&) -> Result<std::shared_ptr<const ProfileSnapshot>> {
            auto copy = std::make_shared<Profile>(*asRead);
            symbolize::SymbolizationPass pass { options };
            auto report = pass.run(*copy, progress);
            if (!report)
                return report.error();
            for (const symbolize::MappingReport& m : report->mappings)
                result->debugSources.insert(int(m.mapping.index()), QString::fromStdString(m.summary));
            result->report = std::move(report).value();
            return withProfile(*snapshot, std::move(copy), progress);
        });
    return true;
}

namespace {

/// A report whose entries are profile's mappings, each taken from the first of the reports
/// with an entry of the same file and build ID (the passes ran over the profiles merged into
/// profile); the counts are the reports' sums.
symbolize::SymbolizeReport reportForMappings(
    const Profile& profile, const symbolize::SymbolizeReport& first, const symbolize::SymbolizeReport& second)
{
    symbolize::SymbolizeReport out;
    std::map<std::pair<std::string, std::string>, const symbolize::MappingReport*> byFile;
    for (const symbolize::SymbolizeReport* r : { &first, &second }) {
        for (const symbolize::MappingReport& m : r->mappings)
            byFile.try_emplace({ m.path, m.buildId }, &m);
        out.locations += r->locations;
        out.resolved += r->resolved;
        out.addressesLookedUp += r->addressesLookedUp;
        out.downloads += r->downloads;
    }
    for (size_t i = 0; i < profile.mappings.size(); ++i) {
        const Mapping& m = profile.mappings[i];
        const auto it = byFile.find({ std::string(profile.str(m.file)), std::string(profile.str(m.buildId)) });
        symbolize::MappingReport entry;
        if (it != byFile.end())
            entry = *it->second;
        else {
            entry.path = profile.str(m.file);
            entry.buildId = profile.str(m.buildId);
        }
        entry.mapping = MappingId(uint32_t(i));
        out.mappings.push_back(std::move(entry));
    }
    out.sourceMaps = first.sourceMaps;
    return out;
}

} // namespace

void ProfileSession::compareWith(const QString& basePath, const symbolize::SymbolizeOptions& options, const DiffOptions& diffOptions)
{
    if (!m_snapshot)
        return;
    if (!isComparing()) {
        m_beforeCompare = m_snapshot;
        m_beforeCompareAsRead = m_asRead;
        m_beforeCompareReport = m_report;
        m_beforeCompareSources = m_debugSources;
    }
    // NEW as read (the pass of the shown profile ran over a copy of it) and the options of the
    // comparison: both sides symbolized alike, so that their frames meet by name.
    const std::shared_ptr<const Profile> next
        = m_beforeCompareAsRead ? m_beforeCompareAsRead : m_beforeCompare->sourceProfile();
    const std::string base = QFile::encodeName(basePath).toStdString();
    const std::string shownPath = QFile::encodeName(path()).toStdString();
    m_pendingBasePath = basePath;
    m_diffOptions = diffOptions;
    // NEW's pass report, for the binaries panel (the worker fills it; read once the job is done).
    auto result = std::make_shared<SymbolizeResult>();
    m_pendingCompare = result;
    start(path(), tr("Comparing with %1").arg(QFileInfo(basePath).fileName()), Change::Compared,
        [next, base, shownPath, options, diffOptions, result](
            Progress* progress, const PreviewSink&) -> Result<std::shared_ptr<const ProfileSnapshot>> {
            // BASE is read on another thread while NEW is symbolized.
            auto baseLoad = std::async(std::launch::async, [base] { return loadProfile(base); });
            Profile newProfile = *next;
            {
                StageProgress stage(progress, 0, 400);
                stage.setStage("reading the base profile, symbolizing this one");
                symbolize::SymbolizationPass pass { options };
                auto r = pass.run(newProfile, &stage);
                if (!r)
                    return r.error();
                result->report = std::move(r).value();
            }
            auto loaded = baseLoad.get();
            if (!loaded)
                return loaded.error().withPath(base);
            Profile baseProfile = std::move(loaded).value();
            symbolize::SymbolizeReport baseReport;
            {
                StageProgress stage(progress, 400, 800);
                stage.setStage("symbolizing the base profile");
                symbolize::SymbolizationPass pass { options };
                auto r = pass.run(baseProfile, &stage);
                if (!r)
                    return r.error();
                baseReport = std::move(r).value();
            }
            if (progress && progress->isCancelled())
                return makeError(ErrorCode::Cancelled, "comparing was cancelled", base);
            auto diff = diffProfiles(std::move(baseProfile), std::move(newProfile), diffOptions);
            if (!diff)
                return diff.error().withPath(base);
            // The binaries panel's report of the comparison's mappings (both sides' binaries):
            // each from NEW's pass, else BASE's, by the file and build ID recorded.
            result->report = reportForMappings(diff->profile, result->report, baseReport);
            for (const symbolize::MappingReport& m : result->report.mappings)
                result->debugSources.insert(int(m.mapping.index()), QString::fromStdString(m.summary));
            StageProgress stage(progress, 800, StageProgress::kScale);
            return makeDiffSnapshot(std::move(*diff), shownPath, &stage);
        });
}

void ProfileSession::stopComparing()
{
    if (!isComparing() || !m_beforeCompare)
        return;
    cancel();
    auto keep = m_beforeCompare;
    m_snapshot = std::move(m_beforeCompare);
    m_asRead = std::move(m_beforeCompareAsRead);
    m_report = std::move(m_beforeCompareReport);
    m_debugSources = std::move(m_beforeCompareSources);
    m_basePath.clear();
    emit finished(Change::Compared, path(), nullptr);
}

bool ProfileSession::cancel()
{
    return m_jobs.cancel(); // whatever the cancelled job still delivers is dropped
}

void ProfileSession::start(const QString& path, const QString& what, Change change, Job job, const QStringList& files)
{
    cancel();
    QFuture<Outcome> future = QtConcurrent::run([job = std::move(job)](QPromise<Outcome>& promise) {
        PromiseProgress<Outcome> progress(promise);
        const PreviewSink preview = [&promise](std::shared_ptr<const ProfileSnapshot> first) {
            Outcome outcome;
            outcome.snapshot = std::move(first);
            outcome.preview = true;
            promise.addResult(std::move(outcome));
        };
        auto result = job(&progress, preview);
        Outcome outcome;
        if (result) {
            outcome.snapshot = std::move(result).value();
        } else {
            outcome.cancelled = result.error().code == ErrorCode::Cancelled;
            outcome.error = QString::fromStdString(result.error().message);
            outcome.errorPath = QString::fromStdString(result.error().path);
        }
        promise.addResult(std::move(outcome));
    });
    auto* watcher = m_jobs.track(future, [this, path, change, files](const QFuture<Outcome>& done) {
        emit stopped();
        const int results = done.resultCount();
        if (done.isCanceled() || results == 0 || done.resultAt(results - 1).preview) {
            Outcome cancelledOutcome;
            cancelledOutcome.cancelled = true;
            finish(path, change, cancelledOutcome);
            return;
        }
        finish(path, change, done.resultAt(results - 1), files);
    });
    const uint64_t current = m_jobs.id();
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, &ProfileSession::progressChanged);
    connect(watcher, &QFutureWatcherBase::progressTextChanged, this, [this, what](const QString& stage) {
        emit stageChanged(stage.isEmpty() ? what : what + QStringLiteral(": ") + stage);
    });
    connect(watcher, &QFutureWatcherBase::resultReadyAt, this, [this, watcher, current, files](int index) {
        if (!m_jobs.isCurrent(current) || watcher->future().isCanceled())
            return;
        const Outcome outcome = watcher->future().resultAt(index);
        if (!outcome.preview)
            return;
        setSnapshot(outcome.snapshot);
        m_showingPreview = true;
        if (files.size() > 1)
            m_files = files;
        emit previewShown();
    });
    emit started(what);
}

void ProfileSession::finish(const QString& path, Change change, const Outcome& outcome, const QStringList& files)
{
    if (outcome.cancelled) {
        emit cancelled();
        return;
    }
    if (!outcome.snapshot) {
        emit failed(outcome.errorPath.isEmpty() ? path : outcome.errorPath, outcome.error);
        return;
    }
    std::shared_ptr<const ProfileSnapshot> keepFrom;
    if (change == Change::Symbolized && m_snapshot) {
        // The same profile, names instead of addresses: zoom and selection carry over.
        keepFrom = m_snapshot;
        m_snapshot = outcome.snapshot;
        m_showingPreview = false;
        m_report = std::make_shared<const symbolize::SymbolizeReport>(std::move(m_pendingSymbolize->report));
        m_debugSources = std::move(m_pendingSymbolize->debugSources);
        m_pendingSymbolize.reset();
    } else if (change == Change::Compared) {
        // A comparison: its own profile; the binaries panel shows the report of the pass the
        // comparison ran over NEW (the binaries of NEW), not an earlier one (which may not have
        // run yet when the comparison started).
        m_snapshot = outcome.snapshot;
        if (m_pendingCompare) {
            m_report = std::make_shared<const symbolize::SymbolizeReport>(std::move(m_pendingCompare->report));
            m_debugSources = std::move(m_pendingCompare->debugSources);
            m_pendingCompare.reset();
        }
        m_asRead = outcome.snapshot->sourceProfile();
        m_showingPreview = false;
        m_basePath = m_pendingBasePath;
    } else if (change == Change::Rebuilt && m_snapshot && m_snapshot->sourceProfile() == outcome.snapshot->sourceProfile()) {
        // Another tree (or grouping) of the same profile: the symbolization report still
        // describes it (grouping adds locations, never mappings).
        m_snapshot = outcome.snapshot;
        m_showingPreview = false;
    } else {
        // The complete tree after a preview: keep where the user went meanwhile.
        if (m_showingPreview && m_snapshot && m_snapshot->profile == outcome.snapshot->profile)
            keepFrom = m_snapshot;
        setSnapshot(outcome.snapshot); // no pass has run over it yet
        if (files.size() > 1)
            m_files = files;
    }
    emit finished(change, path, keepFrom);
}

} // namespace symflame::ui
