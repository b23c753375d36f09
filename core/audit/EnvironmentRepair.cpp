#include "EnvironmentRepair.h"
#include "AuditError.h"
#include "BalanceRebuild.h"
#include "RebuildCheck.h"
#include "chain/ChainParseError.h"
#include "chain/U256.h"
#include "indexer/BalanceBook.h"
#include "indexer/CheckpointStore.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QRegularExpression>
#include <QSqlQuery>
#include <QThread>

namespace forkscope::audit {

namespace {

// Whether a Transfer from block `from` on has a value that is not a decimal amount.
bool anyValueUnparsable(store::Database& db, const indexer::Environment& env, std::uint64_t from)
{
    QSqlQuery q = db.run(QStringLiteral("SELECT value FROM transfer_events WHERE environment_id "
                                        "= ? AND chain_id = ? AND block_number >= ?"),
                         {env.id, qint64(env.chainId), qint64(from)});
    while (q.next()) {
        try {
            chain::u256::fromDecimal(q.value(0).toString(), QStringLiteral("value"));
        } catch (const chain::ChainParseError&) {
            return true;
        }
    }
    return false;
}

} // namespace

std::optional<std::uint64_t> confirmationsOf(const QString& policyVersion)
{
    static const QRegularExpression re(QStringLiteral("^follow-head/confirmations=(\\d{1,18})$"));
    const auto m = re.match(policyVersion);
    if (!m.hasMatch())
        return std::nullopt;
    return m.captured(1).toULongLong();
}

EnvironmentRepair::EnvironmentRepair(store::Database& db, rpc::EthClient& eth,
                                     indexer::IndexerConfig base)
    : m_db(db), m_eth(eth), m_base(std::move(base))
{
}

RepairPlan EnvironmentRepair::plan(const QString& environmentId, std::uint64_t from)
{
    RepairPlan p;
    p.target = AuditTarget::load(m_db, environmentId);
    p.from = from;
    const indexer::Checkpoint& cp = p.target.checkpoint;
    // Where indexing stopped on a block it could not get whole: the alert names the block
    // after the checkpoint, and "repairing" it means fetching it, from another node.
    bool atTheStop = false;
    for (const indexer::CompletenessAlert& alert : p.target.openAlerts)
        atTheStop = atTheStop || (from == cp.number + 1 && alert.fromBlock == from);
    p.rollbackNeeded = !atTheStop;
    if (from > cp.number && !atTheStop)
        throw AuditError(AuditError::Kind::BadRange,
                         QStringLiteral("--from %1 is above the checkpoint %2 of environment %3: "
                                        "nothing is stored there to repair; nothing was changed")
                             .arg(from)
                             .arg(cp.number)
                             .arg(p.target.environment.id));
    if (from < cp.startBlock)
        throw AuditError(AuditError::Kind::BadRange,
                         QStringLiteral("--from %1 is below the start block %2 of environment %3: "
                                        "nothing is stored there; repair from %2 or above; "
                                        "nothing was changed")
                             .arg(from)
                             .arg(cp.startBlock)
                             .arg(p.target.environment.id));
    const auto confirmations = confirmationsOf(cp.policyVersion);
    if (!confirmations)
        throw AuditError(AuditError::Kind::UnknownPolicy,
                         QStringLiteral("the checkpoint of environment %1 has policy version "
                                        "\"%2\", which this build does not know; nothing was "
                                        "changed")
                             .arg(p.target.environment.id, cp.policyVersion));
    p.confirmations = *confirmations;
    const QVariantList scope{p.target.environment.id, qint64(p.target.environment.chainId)};
    if (from > cp.startBlock) {
        p.forkBlock = from - 1;
        QSqlQuery q = m_db.run(QStringLiteral("SELECT block_hash FROM blocks WHERE environment_id "
                                              "= ? AND chain_id = ? AND block_number = ?"),
                               scope + QVariantList{qint64(from - 1)});
        if (!q.next())
            throw AuditError(AuditError::Kind::BadRange,
                             QStringLiteral("block %1, where the checkpoint would move to, has no "
                                            "stored row (a hole itself): repair from an earlier "
                                            "block (`forkscope verify` names the first hole); "
                                            "nothing was changed")
                                 .arg(from - 1));
        p.forkHash = chain::Hash32::fromHex(q.value(0).toString(), QStringLiteral("blocks.hash"));
    }
    for (const indexer::CompletenessAlert& alert : p.target.openAlerts)
        if (alert.fromBlock < from && alert.toBlock >= from)
            throw AuditError(AuditError::Kind::BadRange,
                             QStringLiteral("an open completeness alert covers blocks %1-%2 (%3), "
                                            "from below --from %4: repair from block %1 so its "
                                            "whole range is fetched again; nothing was changed")
                                 .arg(alert.fromBlock)
                                 .arg(alert.toBlock)
                                 .arg(alert.summary())
                                 .arg(from));
    // Logs decoded with an ABI must be decoded again the same way: a repair without it
    // would leave the repaired blocks raw among decoded ones.
    if (m_base.abiPath.isEmpty()) {
        QSqlQuery q = m_db.run(QStringLiteral("SELECT 1 FROM logs WHERE environment_id = ? AND "
                                              "chain_id = ? AND event_name IS NOT NULL LIMIT 1"),
                               scope);
        if (q.next())
            throw AuditError(AuditError::Kind::AbiRequired,
                             QStringLiteral("environment %1 was indexed with an ABI (its logs "
                                            "carry decoded event names): pass the same --abi FILE "
                                            "so the repaired blocks are decoded too; nothing was "
                                            "changed")
                                 .arg(p.target.environment.id));
    }
    for (auto [table, out] :
         {std::pair{"blocks", &p.blocksAbove}, std::pair{"logs", &p.logsAbove}}) {
        QSqlQuery q = m_db.run(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ? "
                                              "AND chain_id = ? AND block_number >= ?")
                                   .arg(QLatin1String(table)),
                               scope + QVariantList{qint64(from)});
        *out = q.next() ? q.value(0).toLongLong() : 0;
    }
    p.target.checkNode(m_eth, m_base.rpcUrl, QStringLiteral("nothing was changed"));
    if (p.rollbackNeeded) {
        store::SqliteContractReader reader(m_db);
        const RebuildCheck check = checkRebuildBelow(reader, m_eth, p.target, from);
        p.wrongBalances = check.wrongBalances;
        p.transfersChecked = check.transfersChecked;
    }
    return p;
}

RepairRollback EnvironmentRepair::rollBack(const RepairPlan& plan)
{
    const auto& env = plan.target.environment;
    if (!plan.rollbackNeeded) {
        // Nothing stored to undo (and a depth-0 "reorg" is never recorded): the alerts of
        // the range are resolved, and indexing fetches it next.
        store::WriteTransaction tx(m_db);
        RepairRollback r;
        r.rollback.oldCheckpoint = plan.target.checkpoint.number;
        r.rollback.forkBlock = qint64(plan.target.checkpoint.number);
        r.alertsResolved =
            indexer::CompletenessAlerts(m_db, env.id, env.chainId)
                .resolveFrom(plan.from, QStringLiteral("fetched again from block %1 (nothing "
                                                       "stored there to roll back)")
                                            .arg(plan.from));
        tx.commit();
        return r;
    }
    indexer::CheckpointStore checkpoints(m_db, env.id, env.chainId, plan.target.sourceId);
    indexer::BalanceBook balances(m_db, env.id, env.chainId);
    indexer::ReorgRollback rollback(m_db, env.id, env.chainId, plan.target.sourceId, checkpoints,
                                    balances);
    // A value that is no number (a corrupt page, an edit) cannot be taken back from its
    // holders' balances: then the rebuild below computes every balance from what remains.
    rollback.setRevertBalances(!anyValueUnparsable(m_db, env, plan.from));
    indexer::ForkPoint fork;
    fork.number = plan.forkBlock;
    fork.hash = plan.forkHash;
    store::WriteTransaction tx(m_db);
    RepairRollback r;
    r.rollback = rollback.rollback(plan.target.checkpoint, fork, indexer::reorg_reason::kRepair);
    const QList<indexer::BalanceChange> fixes = rebuildBalances(m_db, env.id, env.chainId);
    indexer::ReorgRollback::recordBalanceChanges(m_db, r.rollback.reorgId, env.id, env.chainId,
                                                 fixes);
    r.balancesRebuilt = fixes.size();
    r.alertsResolved = indexer::CompletenessAlerts(m_db, env.id, env.chainId)
                           .resolveFrom(plan.from, QStringLiteral("repaired from block %1 (reorg "
                                                                  "id %2): rolled back and "
                                                                  "fetched again")
                                                       .arg(plan.from)
                                                       .arg(r.rollback.reorgId));
    tx.commit();
    return r;
}

ReindexResult
EnvironmentRepair::reindex(const RepairPlan& plan,
                           const std::function<void(const indexer::IndexerStatus&)>& progress,
                           const std::function<bool()>& stop)
{
    indexer::IndexerConfig c = m_base;
    c.environmentId = plan.target.environment.id;
    c.sourceId = plan.target.sourceId;
    c.contracts = plan.target.contracts;
    c.fromBlock = plan.target.checkpoint.startBlock;
    c.confirmations = plan.confirmations;
    c.exitWhenSynced = true;
    indexer::Indexer idx(c, m_db, m_eth);
    idx.onReorg = onReorg;

    const QString finish =
        QStringLiteral("finish with `forkscope index --rpc %1 --db %2 --env %3 --contract %4%5`")
            .arg(c.rpcUrl.toString(QUrl::RemoveUserInfo), c.dbPath, c.environmentId,
                 plan.target.checkpoint.contracts.split(QLatin1Char(' '))
                     .join(QStringLiteral(" --contract ")),
                 c.abiPath.isEmpty() ? QString() : QStringLiteral(" --abi ") + c.abiPath);
    const auto incomplete = [&](const QString& why) {
        const auto& s = idx.status();
        return AuditError(
            AuditError::Kind::Incomplete,
            QStringLiteral("the rollback to block %1 is committed, but indexing again stopped at "
                           "%2: %3; %4")
                .arg(plan.forkBlock ? QString::number(*plan.forkBlock)
                                    : QStringLiteral("before the start block"),
                     s.checkpoint ? QStringLiteral("checkpoint %1").arg(*s.checkpoint)
                                  : QStringLiteral("no checkpoint"),
                     why, finish));
    };

    using State = indexer::IndexerStatus::State;
    int trouble = 0;
    try {
        for (;;) {
            if (stop && stop())
                throw incomplete(QStringLiteral("stopped on request"));
            std::optional<indexer::IndexerStatus> s;
            try {
                s = idx.step();
            } catch (const rpc::RpcException& e) { // prepare() asks the node first
                indexer::IndexerStatus st = idx.status();
                st.state = State::NodeUnreachable;
                st.message = e.error().toString();
                s = st;
            }
            if (progress)
                progress(*s);
            if (s->state == State::Synced) {
                ReindexResult r;
                r.checkpoint = s->checkpoint.value_or(0);
                r.head = s->head.value_or(0);
                r.blocks = s->blocksCommitted;
                r.logs = s->logsCommitted;
                r.transfers = s->transfersCommitted;
                r.reorgs = s->reorgs;
                return r;
            }
            if (s->state == State::Syncing || s->state == State::Reorged) {
                trouble = 0;
                if (s->retryDelayMs > 0)
                    QThread::msleep(ulong(s->retryDelayMs));
                continue;
            }
            if (++trouble >= kMaxTroubleRounds)
                throw incomplete(QStringLiteral("%1 for %2 rounds (%3)")
                                     .arg(indexer::IndexerStatus::stateName(s->state))
                                     .arg(trouble)
                                     .arg(s->message));
            QThread::msleep(ulong(std::clamp(s->retryDelayMs, 200, 2000)));
        }
    } catch (const AuditError&) {
        throw;
    } catch (const indexer::IndexerError& e) {
        throw incomplete(e.message());
    } catch (const store::StoreError& e) {
        throw incomplete(e.message());
    } catch (const std::runtime_error& e) { // truncation, ABI, bad data: each names itself
        throw incomplete(QString::fromUtf8(e.what()));
    }
}

} // namespace forkscope::audit
