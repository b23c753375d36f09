// IndexingService's commands from the window (pause, crash points, repair, verify, a lab
// reset's suspend and resume, ...): each is queued to the loop thread and runs there between
// two steps, never inside one.
#include "DisplayState.h"
#include "IndexingServiceLoop.h"
#include "audit/EnvironmentRepair.h"
#include "audit/StoredDataAuditor.h"
#include "chain/ChainParseError.h"
#include "indexer/CrashPoints.h"
#include "indexer/IndexerErrors.h"
#include "store/ContractReader.h"

namespace forkscope::engine {

void IndexingService::setPaused(bool paused)
{
    m_thread.post([this, paused] {
        Loop& l = *m_loop;
        if (l.snap.paused == paused)
            return;
        l.snap.paused = paused;
        if (paused)
            l.snap.state = QStringLiteral("paused");
        emit logMessage(QStringLiteral("info"), paused ? QStringLiteral("indexing paused")
                                                       : QStringLiteral("indexing resumed"));
        publish(true);
    });
}

void IndexingService::armCrash(const QString& point)
{
    m_thread.post([this, point] {
        Loop& l = *m_loop;
        indexer::armInProcessCrash(point);
        l.snap.crashArmed = point;
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("lab: the indexer will crash at %1 the next time it gets "
                                       "there")
                            .arg(point));
        publish(true);
    });
}

void IndexingService::setVerifyReceipts(bool on)
{
    m_thread.post([this, on] {
        Loop& l = *m_loop;
        l.options.indexer.completeness.receipts = on;
        l.snap.verifyReceipts = on;
        // The fetch policy is fixed per indexer: a new one, from the committed checkpoint.
        if (l.indexer && l.store)
            createIndexer();
        emit logMessage(QStringLiteral("info"),
                        on ? QStringLiteral("receipts proof on: every block with logs of ours is "
                                            "proven against its receipts root")
                           : QStringLiteral("receipts proof off: the bloom check and the "
                                            "recount remain"));
        publish(true);
    });
}

void IndexingService::repair(quint64 fromBlock, const QString& node)
{
    m_thread.post([this, fromBlock, node] {
        Loop& l = *m_loop;
        if (!l.store || !l.eth) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("repair needs a running indexer and database"));
            return;
        }
        const QUrl url(node);
        try {
            // The indexer stops first: the rollback must not race its commits.
            l.indexer.reset();
            auto client = std::make_unique<rpc::JsonRpcClient>(url);
            client->setTimeout(l.options.indexer.rpcTimeout);
            client->setMaxReplyBytes(l.options.indexer.maxReplyBytes);
            client->setStopToken(m_thread.stopToken());
            auto eth = std::make_unique<rpc::EthClient>(*client);
            indexer::IndexerConfig ic = l.options.indexer;
            ic.rpcUrl = url;
            audit::EnvironmentRepair repair(*l.store, *eth, ic);
            const audit::RepairPlan plan = repair.plan(ic.environmentId, fromBlock);
            const audit::RepairRollback done = repair.rollBack(plan);
            if (plan.rollbackNeeded)
                emit logMessage(
                    QStringLiteral("warning"),
                    QStringLiteral("repair: rolled back to block %1 in one "
                                   "transaction (reorg #%2: %3; %4 resolved); "
                                   "indexing again from block %5 reading %6")
                        .arg(done.rollback.forkBlock)
                        .arg(done.rollback.reorgId)
                        .arg(done.rollback.undoneText(),
                             text::count(done.alertsResolved, QStringLiteral("completeness alert"),
                                         QStringLiteral("completeness alerts")))
                        .arg(plan.from)
                        .arg(node));
            else
                emit logMessage(
                    QStringLiteral("warning"),
                    QStringLiteral("repair: nothing stored from block %1 on, nothing "
                                   "to roll back (%2 resolved); fetching block %1 "
                                   "again reading %3")
                        .arg(plan.from)
                        .arg(text::count(done.alertsResolved, QStringLiteral("completeness alert"),
                                         QStringLiteral("completeness alerts")))
                        .arg(node));
            // The indexer reads the chosen node from now on. What it caught on the node it
            // leaves is over with the alerts the repair resolved: nothing reads that node
            // any more to say it still drops logs.
            if (l.monitor && url.toString() != l.snap.endpoint)
                l.monitor->clearDroppedLogs(l.snap.endpoint);
            l.rpc = std::move(client);
            l.eth = std::move(eth);
            l.options.indexer = ic;
            l.snap.suspectedTruncations = 0;
            createIndexer();
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("repair from block %1 refused: %2")
                                .arg(fromBlock)
                                .arg(QString::fromUtf8(e.what())));
            if (!l.indexer && l.store && l.eth)
                createIndexer();
        }
        publish(true);
    });
}

void IndexingService::verifyStoredData()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!l.store || !l.eth || !l.indexer) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("verify needs a running indexer and database"));
            return;
        }
        try {
            const QString env = l.options.indexer.environmentId;
            const audit::AuditTarget target = audit::AuditTarget::load(l.store->reader(), env);
            audit::AuditRange range;
            if (const QString why = target.resolveRange(std::nullopt, std::nullopt, &range);
                !why.isEmpty()) {
                emit logMessage(QStringLiteral("info"), QStringLiteral("verify: %1").arg(why));
                return;
            }
            const audit::AuditResult r =
                audit::StoredDataAuditor(l.store->reader(), *l.eth).audit(target, range);
            if (r.clean()) {
                emit logMessage(QStringLiteral("ok"),
                                QStringLiteral("verify: blocks %1-%2 hold exactly the node's "
                                               "logs (%3 blocks, %4 logs, %5 bloom false "
                                               "positives)")
                                    .arg(r.from)
                                    .arg(r.to)
                                    .arg(r.blocksChecked)
                                    .arg(r.storedLogs)
                                    .arg(r.bloomFalsePositives));
            } else if (const auto first = r.firstHole()) {
                // A hole in committed data: loud and persistent until repaired.
                const audit::AuditHole& hole = r.holes.first();
                l.store->recordAlert(l.snap.endpoint, *first, r.holes.last().block,
                                     QStringLiteral("stored data has %1, the first %2 (found by "
                                                    "Verify stored data)")
                                         .arg(text::count(r.holeCount, QStringLiteral("hole"),
                                                          QStringLiteral("holes")))
                                         .arg(hole.describe()),
                                     QStringLiteral("audit"));
                emit logMessage(QStringLiteral("error"),
                                QStringLiteral("verify: %1 in blocks %2-%3, the first %4")
                                    .arg(text::count(r.holeCount, QStringLiteral("hole"),
                                                     QStringLiteral("holes")))
                                    .arg(*first)
                                    .arg(r.holes.last().block)
                                    .arg(hole.describe()));
            } else if (r.balanceFindingCount > 0) {
                emit logMessage(
                    QStringLiteral("error"),
                    QStringLiteral("verify: %1 not the sum of their "
                                   "stored transfers, the first %2; a repair from "
                                   "the checkpoint rebuilds them")
                        .arg(r.balanceFindingCount == 1
                                 ? QStringLiteral("1 balance is")
                                 : QStringLiteral("%1 balances are").arg(r.balanceFindingCount))
                        .arg(r.balanceFindings.first().describe()));
            } else {
                emit logMessage(QStringLiteral("warning"),
                                QStringLiteral("verify: the chain moved on at block %1 (a reorg "
                                               "the indexer has not seen yet); not a hole")
                                    .arg(*r.reorgedAt));
            }
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("verify failed: %1").arg(QString::fromUtf8(e.what())));
        }
        publish(true);
    });
}

void IndexingService::suspend()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        // Nothing may write into the environment the lab is about to archive.
        l.outbox.reset();
        l.indexer.reset();
        l.snap.suspended = true;
        l.snap.state = QStringLiteral("suspended");
        publish(true);
        emit suspended();
    });
}

void IndexingService::resumeWith(const QString& environmentId,
                                 const QList<chain::Address>& contracts,
                                 const QList<wire::FactorySource>& factories)
{
    m_thread.post([this, environmentId, contracts, factories] {
        Loop& l = *m_loop;
        l.options.indexer.environmentId = environmentId;
        l.options.indexer.contracts = contracts;
        l.options.indexer.factories = factories;
        l.snap.suspended = false;
        l.snap.paused = false; // a reset promises to index the fresh chain
        l.snap.chainId = 0;
        l.lastBlocks = -1;
        if (l.store && l.eth && l.options.indexer.hasSources())
            createIndexer();
        publish(true);
    });
}

void IndexingService::setMaxReorgDepth(quint64 depth)
{
    m_thread.post([this, depth] {
        Loop& l = *m_loop;
        const quint64 before = l.options.indexer.maxReorgDepth;
        l.options.indexer.maxReorgDepth = std::max<quint64>(1, depth);
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("reorg limit raised from %1 to %2%3")
                            .arg(before)
                            .arg(text::count(qint64(l.options.indexer.maxReorgDepth),
                                             QStringLiteral("block"), QStringLiteral("blocks")))
                            .arg(l.snap.deepReorgLimit > 0
                                     ? QStringLiteral("; indexing continues and rolls back "
                                                      "as far as the fork")
                                     : QString()));
        // The limit is part of the indexer's policy: a new one, from the committed checkpoint.
        if (l.store && l.eth && l.options.indexer.hasSources() && !l.snap.suspended)
            createIndexer();
        publish(true);
    });
}

void IndexingService::setOutboxWebhook(const QUrl& webhook)
{
    m_thread.post([this, webhook] {
        Loop& l = *m_loop;
        l.outbox.reset(); // joins the old dispatcher; updateOutbox starts the new one
        l.options.webhook = webhook;
        l.options.outboxFile.clear();
        l.snap.outboxSink = webhook.toString(QUrl::RemoveUserInfo);
        updateOutbox();
        publish(true);
    });
}

void IndexingService::loseNextAcknowledgement()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!l.indexer) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("lost acknowledgement: nothing is being indexed"));
            return;
        }
        l.indexer->loseNextAcknowledgement();
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("lab: the answer to the next committed batch will be "
                                       "lost, so the batch is sent again"));
    });
}

void IndexingService::addSource(const QString& address, std::optional<quint64> fromBlock)
{
    addSourceOnLoop(QStringLiteral("add contract %1").arg(address), [address, fromBlock](Loop& l) {
        // The address is checked before anything is asked or written.
        const auto a = chain::Address::fromHex(address, QStringLiteral("contract address"));
        l.indexer->addSource(a, fromBlock);
        // An indexer made again (after a crash, a resume) names it too.
        if (!l.options.indexer.contracts.contains(a))
            l.options.indexer.contracts.append(a);
        return QStringLiteral("backfilled next to the head; it joins the contract set when it "
                              "reaches the checkpoint");
    });
}

void IndexingService::addFactory(const SourceSpec& spec, std::optional<quint64> fromBlock)
{
    addSourceOnLoop(QStringLiteral("add factory %1").arg(spec.address.trimmed()), [spec, fromBlock](
                                                                                      Loop& l) {
        // The address and the rule are checked before anything is asked or written.
        const auto a =
            chain::Address::fromHex(spec.address.trimmed(), QStringLiteral("factory address"));
        const wire::FactorySource factory =
            wire::FactorySource::resolve(a, spec.event.trimmed(), spec.childArg.trimmed(), nullptr);
        l.indexer->addFactory(factory, fromBlock);
        // An indexer made again (after a crash, a resume) names it too.
        if (!l.options.indexer.factories.contains(factory))
            l.options.indexer.factories.append(factory);
        return QStringLiteral("it and its children are backfilled next to the head; they "
                              "join the contract set when the backfill reaches the "
                              "checkpoint");
    });
}

// On the loop's thread: `add` adds the source and says what happens next; what went wrong is
// one line of the log naming the source.
void IndexingService::addSourceOnLoop(const QString& what, std::function<QString(Loop&)> add)
{
    m_thread.post([this, what, add = std::move(add)] {
        Loop& l = *m_loop;
        const auto fail = [&](const QString& why) {
            emit logMessage(QStringLiteral("error"), what + QStringLiteral(": ") + why);
        };
        if (!l.indexer)
            return fail(QStringLiteral("nothing is being indexed"));
        try {
            emit logMessage(QStringLiteral("info"), what + QStringLiteral(": ") + add(l));
        } catch (const chain::ChainParseError& e) {
            fail(e.message());
        } catch (const wire::FactorySourceError& e) {
            fail(e.message());
        } catch (const indexer::IndexerError& e) {
            fail(e.message());
        } catch (const rpc::RpcException& e) {
            fail(e.error().toString());
        }
    });
}

void IndexingService::setAlertedNodes(const QHash<QString, QPair<qint64, quint64>>& nodes)
{
    m_thread.post([this, nodes] {
        if (m_loop->monitor)
            m_loop->monitor->setAlertedNodes(nodes);
    });
}

} // namespace forkscope::engine
