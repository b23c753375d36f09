// The lab's invariant verdict: after each lab action, once the indexer has caught up with
// the node, the committed rows are checked against the node's chain (InvariantChecker) and
// the verdict is published with the lab snapshot.
#include "LabController.h"
#include "LabControllerLoop.h"
#include "indexer/InvariantChecker.h"
#include "lab/Devnet.h"
#include "lab/ReorgInjector.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/ContractReader.h"
#include "store/ReadOnlyStore.h"

#include <chrono>
#include <utility>

namespace forkscope::engine {

void LabController::dueVerdict(const QString& action)
{
    Loop& l = *m_loop;
    l.verdictAction = action;
    l.verdictAfterNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    l.snap.verdict = {InvariantVerdict::State::Checking, action,
                      QStringLiteral("waiting for the indexer to catch up with the node"),
                      QDateTime::currentDateTimeUtc()};
}

void LabController::requestVerdict(const QString& action)
{
    m_thread.post([this, action] {
        dueVerdict(action);
        if (m_loop->indexerHalt != 0)
            settleOnHalt();
        publish();
    });
}

void LabController::indexerHalted(const QString& environmentId, int halt, const QString& why)
{
    m_thread.post([this, environmentId, halt, why] {
        Loop& l = *m_loop;
        if (environmentId != l.environmentId)
            return; // a snapshot from before a reset
        l.indexerHalt = halt;
        l.haltedBecause = why;
        if (halt != 0 && !l.verdictAction.isEmpty())
            settleOnHalt();
    });
}

void LabController::settleOnHalt()
{
    Loop& l = *m_loop;
    using H = EngineStatus::IndexerHalt;
    const H halt = H(l.indexerHalt);
    if (halt == H::DataIncomplete) {
        // Indexing waits at a block it could not get whole: what is stored can be checked
        // now (the badge adds "data incomplete"); catching up would wait for the repair.
        runVerdict();
        return;
    }
    InvariantVerdict v;
    v.action = std::exchange(l.verdictAction, QString());
    v.at = QDateTime::currentDateTimeUtc();
    if (halt == H::DeepReorg) {
        v.state = InvariantVerdict::State::Diverged;
        v.summary = QStringLiteral("the stored blocks are no longer the node's chain: %1")
                        .arg(l.haltedBecause);
    } else {
        v.state = InvariantVerdict::State::Unavailable;
        v.summary = QStringLiteral("not checked: indexing stopped: %1").arg(l.haltedBecause);
    }
    l.snap.verdict = v;
    emit logMessage(QStringLiteral("warning"),
                    QStringLiteral("invariants after %1: %2").arg(v.action, v.summary));
    publish();
}

void LabController::indexerSynced(const QString& environmentId, quint64 checkpoint,
                                  qint64 stepStartedNs)
{
    m_thread.post([this, environmentId, checkpoint, stepStartedNs] {
        Loop& l = *m_loop;
        if (environmentId != l.environmentId)
            return; // a snapshot from before a reset
        l.indexerHalt = 0;
        if (stepStartedNs <= l.verdictAfterNs)
            return; // that step may have begun before the action: wait for the next
        if (l.deepReorgAt && checkpoint >= *l.deepReorgAt) {
            l.deepReorgAt.reset();
            l.snap.deepReorgPending.clear();
            const int depth = l.deepReorgDepth;
            const quint64 limit = l.deepReorgLimit;
            // A QString, not the QStringBuilder `+` makes: that would refer to the
            // describe() temporary after the lambda returned (a double free).
            runAction(QStringLiteral("inject reorg depth %1 (deeper than the limit)").arg(depth),
                      [&]() -> QString {
                          const lab::ReorgInjection r =
                              lab::ReorgInjector::inject(*l.anvil, depth, lab::ReorgTxMode::Keep);
                          // Said from what anvil did, not from what was asked.
                          return r.describe() +
                                 (quint64(r.producedDepth) > limit
                                      ? QStringLiteral("; deeper than the limit of %1").arg(limit)
                                      : QStringLiteral("; NOT deeper than the limit of %1, so "
                                                       "the indexer follows it as any reorg")
                                            .arg(limit));
                      });
            return;
        }
        if (!l.verdictAction.isEmpty())
            runVerdict();
    });
}

void LabController::runVerdict()
{
    Loop& l = *m_loop;
    // Checked on committed rows against the node, after the indexer reached the head: the
    // DB must be exactly the node's chain up to the checkpoint.
    const QString action = std::exchange(l.verdictAction, QString());
    InvariantVerdict v;
    v.action = action;
    v.at = QDateTime::currentDateTimeUtc();
    try {
        if (!l.truth)
            l.truth = store::ReadOnlyStore::open(m_config.dbPath);
        rpc::EthClient node(*l.anvil);
        // The factories and every child the store holds: a child the node no longer has
        // (its creation event rolled back) is checked, and any row left of it is a violation.
        QList<chain::Address> checked = contracts();
        for (const chain::Address& f : wire::factoryAddresses(factories()))
            if (!checked.contains(f))
                checked.append(f);
        for (auto q = l.truth->reader().query(
                 QStringLiteral("SELECT DISTINCT child FROM factory_children WHERE "
                                "environment_id = ?"),
                 {l.environmentId});
             q->next();) {
            const auto child =
                chain::Address::fromHex(q->value(0).toString(), QStringLiteral("stored child"));
            if (!checked.contains(child))
                checked.append(child);
        }
        const indexer::InvariantReport r =
            indexer::InvariantChecker(l.truth->reader(), node)
                .check(l.environmentId, m_config.indexer.sourceId, checked);
        v.state = r.ok() ? InvariantVerdict::State::Holds : InvariantVerdict::State::Violated;
        v.summary = r.summary();
        if (std::exchange(l.outboxAckChecked, false)) {
            bool delivered = false;
            v.summary += QStringLiteral("; ") + outboxAckCheck(&delivered);
            if (!delivered)
                v.state = InvariantVerdict::State::Violated;
        }
    } catch (const std::exception& e) {
        l.truth.reset();
        v.state = InvariantVerdict::State::Unavailable;
        v.summary = QStringLiteral("could not check: %1").arg(QString::fromUtf8(e.what()));
    }
    l.snap.verdict = v;
    emit logMessage(v.state == InvariantVerdict::State::Holds ? QStringLiteral("ok")
                                                              : QStringLiteral("fail"),
                    QStringLiteral("invariants after %1: %2").arg(action, v.summary));
    publish();
}

} // namespace forkscope::engine
