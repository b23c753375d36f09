#include "LabRunService.h"

#include "concurrency/LoopThread.h"
#include "lab/DevnetError.h"
#include "lab/ForeignIndexer.h"
#include "lab/PgLab.h"
#include "lab/run/LabRun.h"

namespace forkscope::engine {

namespace {

// A run whose lab could not be set up: the result says why, as the command line does.
lab::LabRunResult notStarted(const lab::LabRunSpec& spec, const QString& why)
{
    lab::LabRunResult r;
    r.scenario = lab::labScenarioName(spec.scenario);
    r.seed = spec.seed;
    r.indexerCommand = spec.indexerCommand;
    r.query = spec.query;
    r.aborted = QStringLiteral("the lab could not start: %1").arg(why);
    r.timeline << lab::LabRunEvent{QDateTime::currentDateTimeUtc(), r.aborted};
    return r;
}

} // namespace

LabRunService::LabRunService(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<lab::LabRunProgress>();
    qRegisterMetaType<lab::LabRunResult>();
    // Received here first (on the GUI thread, queued), before anyone else hears of it.
    connect(this, &LabRunService::finished, this, [this] { m_running = false; });
}

LabRunService::~LabRunService()
{
    join();
}

void LabRunService::join()
{
    if (!m_thread)
        return;
    m_thread->requestStop();
    m_thread->wait(std::chrono::minutes(2));
    m_thread.reset();
}

bool LabRunService::start(const lab::LabRunSpec& spec)
{
    if (m_running)
        return false;
    join(); // the last run's thread, finished
    m_running = true;
    m_thread = std::make_unique<concurrency::LoopThread>(QStringLiteral("forkscope-lab-run"));
    const concurrency::StopTokenPtr stop = m_thread->stopToken();
    // The run is the thread's start, not a command: a cancel that comes first (a command
    // would then be dropped) still gets a run that stops at once, and its finished().
    m_thread->start(
        [this, spec, stop] {
            lab::LabRun::Options o;
            static_cast<lab::LabRunSpec&>(o) = spec;
            o.stopRequested = [stop] { return stop->stopRequested(); };
            o.onProgress = [this](const lab::LabRunProgress& p) { emit progress(p); };
            lab::LabRunResult r;
            try {
                lab::LabRun run(o);
                r = run.run();
            } catch (const lab::DevnetError& e) {
                r = notStarted(spec, e.message());
            } catch (const lab::PgLabError& e) {
                r = notStarted(spec, e.message());
            } catch (const lab::ForeignIndexerError& e) {
                r = notStarted(spec, e.message());
            } catch (const std::exception& e) {
                r = notStarted(spec, QString::fromUtf8(e.what()));
            }
            emit finished(r);
        },
        {}, {});
    return true;
}

void LabRunService::cancel()
{
    if (m_thread)
        m_thread->requestStop();
}

} // namespace forkscope::engine
