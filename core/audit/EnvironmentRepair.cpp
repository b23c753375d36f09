#include "EnvironmentRepair.h"
#include "AuditError.h"
#include "BalanceRebuild.h"
#include "RebuildCheck.h"
#include "indexer/IndexStore.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "indexer/SourceFetchSpec.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/StoreError.h"

#include <QRegularExpression>
#include <QThread>

namespace forkscope::audit {

std::optional<std::uint64_t> confirmationsOf(const QString& policyVersion)
{
    static const QRegularExpression re(QStringLiteral("^follow-head/confirmations=(\\d{1,18})$"));
    const auto m = re.match(policyVersion);
    if (!m.hasMatch())
        return std::nullopt;
    return m.captured(1).toULongLong();
}

EnvironmentRepair::EnvironmentRepair(indexer::IndexStore& store, rpc::EthClient& eth,
                                     indexer::IndexerConfig base)
    : m_store(store), m_eth(eth), m_base(std::move(base))
{
}

void EnvironmentRepair::openEnvironment(const RepairPlan& plan)
{
    indexer::EnvironmentClaim claim;
    claim.environmentId = plan.target.environment.id;
    claim.sourceId = plan.target.sourceId;
    claim.chainId = plan.target.environment.chainId;
    claim.genesis = plan.target.environment.genesisHash;
    claim.rpcUrl = m_base.rpcUrl;
    claim.contracts = plan.target.contracts;
    for (const wire::FactorySource& f : plan.target.factories)
        claim.factoryRules << f.ruleText();
    const auto registry = indexer::loadSourceAbi(m_base);
    claim.abiDigest = registry ? registry->digest() : QString();
    m_store.open(claim);
}

RepairPlan EnvironmentRepair::plan(const QString& environmentId, std::uint64_t from)
{
    RepairPlan p;
    store::ContractReader& reader = m_store.reader();
    p.target = AuditTarget::load(reader, environmentId);
    p.from = from;
    const indexer::Checkpoint& cp = p.target.checkpoint;
    // Where indexing stopped on a block it could not get whole: the alert names that block,
    // above the checkpoint (the range it ended was not committed, so blocks before it in that
    // range are not stored either), and "repairing" it means fetching from the checkpoint on,
    // from another node.
    bool atTheStop = false;
    for (const indexer::CompletenessAlert& alert : p.target.openAlerts)
        atTheStop = atTheStop || (from > cp.number && alert.fromBlock == from);
    p.rollbackNeeded = !atTheStop;
    if (atTheStop)
        p.from = cp.number + 1;
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
        const auto q = reader.query(QStringLiteral("SELECT block_hash FROM blocks WHERE "
                                                   "environment_id = ? AND chain_id = ? AND "
                                                   "block_number = ?"),
                                    scope + QVariantList{qint64(from - 1)});
        if (!q->next())
            throw AuditError(AuditError::Kind::BadRange,
                             QStringLiteral("block %1, where the checkpoint would move to, has no "
                                            "stored row (a hole itself): repair from an earlier "
                                            "block (`forkscope verify` names the first hole); "
                                            "nothing was changed")
                                 .arg(from - 1));
        p.forkHash = chain::Hash32::fromHex(q->value(0).toString(), QStringLiteral("blocks.hash"));
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
        if (reader
                .query(QStringLiteral("SELECT 1 FROM logs WHERE environment_id = ? AND "
                                      "chain_id = ? AND event_name IS NOT NULL LIMIT 1"),
                       scope)
                ->next())
            throw AuditError(AuditError::Kind::AbiRequired,
                             QStringLiteral("environment %1 was indexed with an ABI (its logs "
                                            "carry decoded event names): pass the same --abi FILE "
                                            "so the repaired blocks are decoded too; nothing was "
                                            "changed")
                                 .arg(p.target.environment.id));
    }
    for (auto [table, out] :
         {std::pair{"blocks", &p.blocksAbove}, std::pair{"logs", &p.logsAbove}}) {
        *out = reader.scalar(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ? "
                                            "AND chain_id = ? AND block_number >= ?")
                                 .arg(QLatin1String(table)),
                             scope + QVariantList{qint64(from)});
    }
    p.target.checkNode(m_eth, m_base.rpcUrl, QStringLiteral("nothing was changed"));
    if (p.rollbackNeeded) {
        const RebuildCheck check = checkRebuildBelow(reader, m_eth, p.target, from);
        p.wrongBalances = check.wrongBalances;
        p.transfersChecked = check.transfersChecked;
    }
    // One writer decides what is rolled back: on a shared database, the one that follows the
    // head. A repair beside it would race its commits.
    openEnvironment(p);
    if (!m_store.coordination().leadsHead())
        throw AuditError(AuditError::Kind::InUse,
                         QStringLiteral("another process follows the head of %1 (it holds the "
                                        "head lock): stop it, repair, then start it again; "
                                        "nothing was changed")
                             .arg(p.target.environment.id));
    return p;
}

RepairRollback EnvironmentRepair::rollBack(const RepairPlan& plan)
{
    openEnvironment(plan);
    std::optional<indexer::ForkPoint> fork;
    if (plan.rollbackNeeded) {
        fork.emplace();
        fork->number = plan.forkBlock;
        fork->hash = plan.forkHash;
    }
    const indexer::RepairOutcome done = m_store.repair(plan.target.checkpoint, fork, plan.from);
    RepairRollback r;
    r.rollback = done.rollback;
    r.balancesRebuilt = done.balancesRebuilt;
    r.alertsResolved = done.alertsResolved;
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
    c.factories = plan.target.factories;
    c.fromBlock = plan.target.checkpoint.startBlock;
    c.confirmations = plan.confirmations;
    c.exitWhenSynced = true;
    indexer::Indexer idx(c, m_store, m_eth);
    idx.onReorg = onReorg;

    QStringList sourceArgs;
    for (const chain::Address& a : c.contracts)
        sourceArgs << QStringLiteral("--contract") << a.toHex();
    for (const wire::FactorySource& f : c.factories) {
        QStringList args = f.arguments();
        args[3] = QLatin1Char('"') + args[3] + QLatin1Char('"'); // the signature has spaces
        sourceArgs << args;
    }
    const QString finish =
        QStringLiteral("finish with `forkscope index --rpc %1 --db %2 --env %3 %4%5`")
            .arg(c.rpcUrl.toString(QUrl::RemoveUserInfo), c.dbPath, c.environmentId,
                 sourceArgs.join(QLatin1Char(' ')),
                 c.abiPath.isEmpty() ? QString() : QStringLiteral(" --abi ") + c.abiPath);
    const auto incomplete = [&](const QString& why) {
        const auto& s = idx.status();
        return AuditError(
            AuditError::Kind::Incomplete,
            QStringLiteral("the rollback to block %1 is committed, but indexing again stopped at "
                           "%2: %3; %4")
                .arg(plan.forkBlock ? QString::number(*plan.forkBlock)
                                    : QStringLiteral("before the start block"),
                     // Before its first round the indexer has not read the checkpoint:
                     // it is the one the rollback left.
                     s.checkpoint     ? QStringLiteral("checkpoint %1").arg(*s.checkpoint)
                     : plan.forkBlock ? QStringLiteral("checkpoint %1").arg(*plan.forkBlock)
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
