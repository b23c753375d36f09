// The lab's environments: a reset archives the live one and starts a fresh one on a reset
// anvil; when the managed anvil stops for good, its environment is archived too.
#include "LabController.h"
#include "LabControllerLoop.h"
#include "indexer/EnvironmentRegistry.h"
#include "lab/Devnet.h"
#include "lab/LabReset.h"
#include "rpc/JsonRpcClient.h"
#include "store/Database.h"
#include "store/OpenStore.h"

#include <QDeadlineTimer>

namespace forkscope::engine {

lab::EnvironmentBook& LabController::book()
{
    Loop& l = *m_loop;
    if (!l.book) {
        QString restored; // the indexer's own opening says it
        l.book = store::openEnvironmentBook(m_config.dbPath, &restored);
    }
    return *l.book;
}

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
            // Straight to anvil (not through a lab proxy, whose knobs may be failing).
            const lab::LabResetResult r =
                lab::LabReset::reset(book(), *l.anvil, l.devnet->url(), QString(), environmentId);
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
            l.book.reset();
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
        lab::EnvironmentBook& b = book();
        b.begin();
        bool live = false;
        try {
            for (const indexer::Environment& e : b.list())
                live = live || (e.id == l.environmentId && e.archivedAt.isEmpty());
            if (live)
                b.archive(l.environmentId, store::nowUtc());
            b.commit();
        } catch (...) {
            b.rollback();
            throw;
        }
        if (!live)
            return;
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("environment %1 archived: its managed anvil stopped with "
                                       "the engine (every row is kept; View > Environments "
                                       "opens it)")
                            .arg(l.environmentId));
    } catch (const std::exception& e) {
        l.book.reset();
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("could not archive environment %1 as its managed anvil "
                                       "stopped: %2")
                            .arg(l.environmentId, QString::fromUtf8(e.what())));
    }
}

} // namespace forkscope::engine
