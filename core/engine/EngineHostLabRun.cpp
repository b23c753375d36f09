// EngineHost's lab runs (Lab > Run lab scenario...): handed to LabRunService, whose
// progress and result are passed on as EngineApi's signals.
#include "EngineHost.h"
#include "LabRunService.h"

namespace forkscope::engine {

bool EngineHost::startLabRun(const lab::LabRunSpec& spec)
{
    if (!m_labRun) {
        m_labRun = std::make_unique<LabRunService>();
        connect(m_labRun.get(), &LabRunService::progress, this, &EngineApi::labRunProgress);
        connect(m_labRun.get(), &LabRunService::finished, this, &EngineApi::labRunFinished);
    }
    if (!m_labRun->start(spec))
        return false;
    log(QStringLiteral("info"), QStringLiteral("lab run started: %1, seed %2, indexer %3")
                                    .arg(lab::labScenarioName(spec.scenario))
                                    .arg(spec.seed)
                                    .arg(spec.indexerCommand));
    return true;
}

void EngineHost::cancelLabRun()
{
    if (m_labRun && m_labRun->isRunning()) {
        log(QStringLiteral("info"), QStringLiteral("lab run cancelled: stopping what it started"));
        m_labRun->cancel();
    }
}

bool EngineHost::isLabRunRunning() const
{
    return m_labRun && m_labRun->isRunning();
}

} // namespace forkscope::engine
