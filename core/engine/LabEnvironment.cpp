// The lab's environments: a reset archives the live one and starts a fresh one on a reset
// anvil; when the managed anvil stops for good, its environment is archived too.
#include "LabController.h"
#include "LabControllerLoop.h"
#include "indexer/EnvironmentRegistry.h"
#include "lab/Devnet.h"
#include "lab/LabReset.h"
#include "rpc/JsonRpcClient.h"
#include "store/Database.h"

#include <QDeadlineTimer>

namespace forkscope::engine {

void LabController::reset(const QString& environmentId)
{
    m_thread.post([this, environmentId] {
        Loop& l = *m_loop;
        if (!available(QStringLiteral("lab reset"))) {
            emit resetFailed(QStringLiteral("the lab is not available"));
            return;
        }
        l.snap.labReady = false; // no lab action, and no second reset, until this one is done
        publish();
        try {
            if (!l.db)
                l.db = store::Database::open(m_config.dbPath);
            // Straight to anvil (not through a lab proxy, whose knobs may be failing).
            const lab::LabResetResult r =
                lab::LabReset::reset(*l.db, *l.anvil, l.devnet->url(), QString(), environmentId);
            emit logMessage(
                QStringLiteral("warning"),
                QStringLiteral(
                    "lab reset: environment %1 archived (read-only; %2 blocks, %3 transfers, "
                    "%4 balances, %5 reorgs kept); anvil reset; new environment %6")
                    .arg(r.archivedEnvironmentId)
                    .arg(r.blocksKept)
                    .arg(r.transfersKept)
                    .arg(r.balancesKept)
                    .arg(r.reorgsKept)
                    .arg(r.newEnvironmentId));
            l.environmentId = r.newEnvironmentId;
            deployDemoToken();
            l.snap.labReady = true;
            dueVerdict(QStringLiteral("lab reset"));
            l.nextDemoTick = QDeadlineTimer(0);
            publish();
            emit resetDone(setup());
        } catch (const std::exception& e) {
            l.snap.labReady = true;
            publish();
            emit resetFailed(QString::fromUtf8(e.what()));
        }
    });
}

void LabController::archiveLiveEnvironment()
{
    // The managed anvil's chain lives only as long as this lab (its --state file is a
    // temporary one): once it stops for good, nothing can ever index into this environment
    // again. It is archived, every row kept, rather than listed as "live" with no chain
    // behind it. The coordinator stops the indexer before it stops the lab.
    Loop& l = *m_loop;
    if (l.environmentId.isEmpty())
        return;
    try {
        if (!l.db)
            l.db = store::Database::open(m_config.dbPath);
        store::WriteTransaction tx(*l.db);
        indexer::EnvironmentRegistry registry(*l.db);
        const auto found = registry.find(l.environmentId);
        if (!found || !found->archivedAt.isEmpty())
            return;
        registry.archive(l.environmentId, store::nowUtc());
        tx.commit();
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("environment %1 archived: its managed anvil stopped with "
                                       "the engine (every row is kept; View > Environments "
                                       "opens it)")
                            .arg(l.environmentId));
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("could not archive environment %1 as its managed anvil "
                                       "stopped: %2")
                            .arg(l.environmentId, QString::fromUtf8(e.what())));
    }
}

} // namespace forkscope::engine
