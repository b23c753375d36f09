#include "ReadService.h"
#include "ReorgDiffReader.h"
#include "TableQuery.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "outbox/OutboxDispatcher.h"
#include "report/ReportBuilder.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "rpc/RpcError.h"
#include "rpc/TokenMetadataReader.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include "chain/ChainParseError.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QSqlQuery>

namespace forkscope::engine {

namespace {

ReorgMark markOf(const store::ReorgEventRow& r)
{
    return {r.id,
            QDateTime::fromString(r.detectedAt, Qt::ISODateWithMs),
            r.depth,
            r.reason,
            r.forkBlockNumber,
            r.rowsRemoved};
}

} // namespace

// Everything below lives on the read thread only.
struct ReadService::Loop
{
    std::unique_ptr<store::Database> db;
    QString openError; // the last reason the file could not be opened (logged once)
    QString environmentId;
    quint64 chainId = 0;
    QElapsedTimer outboxRateClock;
    qint64 outboxRateBase = -1;
    double outboxRate = 0;
    // Token metadata of the live environment, read once per token from its node; nullopt:
    // the token answered nothing usable (not asked again until the scope changes).
    QUrl tokenNode;
    QHash<QString, std::optional<chain::TokenInfo>> tokens;
    QDeadlineTimer tokenRetry{0};
};

ReadService::ReadService(QString dbPath, QObject* parent)
    : QObject(parent), m_dbPath(std::move(dbPath)), m_thread(QStringLiteral("forkscope-read"))
{
    qRegisterMetaType<DbSummary>();
    qRegisterMetaType<TablePage>();
    qRegisterMetaType<ReorgDiff>();
    qRegisterMetaType<report::CheckpointReport>();
}

ReadService::~ReadService()
{
    requestStop();
    wait();
}

void ReadService::start()
{
    m_loop = std::make_unique<Loop>();
    m_thread.start([] {}, [this] { return step(); },
                   [this] {
                       m_loop->db.reset();
                       emit stopped();
                   });
}

void ReadService::requestStop()
{
    m_thread.requestStop();
}

bool ReadService::wait(std::chrono::milliseconds timeout)
{
    return m_thread.wait(timeout);
}

bool ReadService::ensureOpen()
{
    Loop& l = *m_loop;
    if (l.db)
        return true;
    try {
        // Read-only: this connection can never write, and it sees committed rows only. The
        // indexer creates the file; until then there is nothing to read.
        store::Database::Options o;
        o.readOnly = true;
        l.db = store::Database::open(m_dbPath, o);
        l.openError.clear();
        return true;
    } catch (const std::exception& e) {
        const QString why = QString::fromUtf8(e.what());
        l.openError = why;
        return false;
    }
}

int ReadService::step()
{
    if (!ensureOpen() || m_loop->environmentId.isEmpty())
        return 500;
    refreshSummary();
    return 1000;
}

void ReadService::refreshSummary()
{
    Loop& l = *m_loop;
    DbSummary s;
    s.environmentId = l.environmentId;
    s.chainId = l.chainId;
    s.schemaVersion = l.db->schemaVersion();
    s.readAt = QDateTime::currentDateTimeUtc();
    try {
        for (const indexer::Environment& e : indexer::EnvironmentRegistry(*l.db).list()) {
            s.environments.append({e.id, e.chainId, e.createdAt, e.archivedAt});
            if (e.id == l.environmentId && s.chainId == 0)
                s.chainId = e.chainId;
        }
        for (const store::ReorgEventRow& r :
             store::ReorgEventStore(*l.db).list(l.environmentId, s.chainId, 200))
            s.recentReorgs.append(markOf(r));
        s.openAlerts = indexer::CompletenessAlerts(*l.db, l.environmentId, s.chainId).open();
        QSqlQuery cp = l.db->run(
            QStringLiteral("SELECT block_number, block_hash, policy_version, generation, "
                           "verified_at FROM indexer_checkpoints WHERE environment_id = ? AND "
                           "chain_id = ?"),
            {l.environmentId, qint64(s.chainId)});
        if (cp.next()) {
            s.checkpoint = quint64(cp.value(0).toLongLong());
            s.checkpointHash = cp.value(1).toString();
            s.policyVersion = cp.value(2).toString();
            s.generation = cp.value(3).toInt();
            s.verifiedAt = cp.value(4).toString();
        }
        const outbox::OutboxCounts rows = outbox::countRows(*l.db, l.environmentId, s.chainId);
        s.outboxPending = rows.pending;
        s.outboxDelivered = rows.delivered;
        s.outboxFailed = rows.failed;
        if (l.outboxRateBase < 0 || !l.outboxRateClock.isValid()) {
            l.outboxRateClock.start();
            l.outboxRateBase = rows.delivered;
        } else if (l.outboxRateClock.elapsed() >= 1000) {
            l.outboxRate = std::max(0.0, double(rows.delivered - l.outboxRateBase) * 1000.0 /
                                             double(l.outboxRateClock.restart()));
            l.outboxRateBase = rows.delivered;
        }
        s.outboxDeliveredPerSecond = l.outboxRate;
        // The oldest row still waiting, aged by its block's time (the outbox has no enqueue
        // time of its own; the block time is when the event happened on chain).
        QSqlQuery age = l.db->run(
            QStringLiteral("SELECT b.block_timestamp FROM outbox o JOIN blocks b ON "
                           "b.environment_id = o.environment_id AND b.chain_id = o.chain_id AND "
                           "b.block_number = o.block_number WHERE o.environment_id = ? AND "
                           "o.chain_id = ? AND o.delivered_at IS NULL AND o.failed_at IS NULL "
                           "ORDER BY o.block_number LIMIT 1"),
            {l.environmentId, qint64(s.chainId)});
        if (age.next())
            s.outboxOldestPendingAgeSecs = std::max(
                0.0, double(QDateTime::currentSecsSinceEpoch() - age.value(0).toLongLong()));
    } catch (const std::exception& e) {
        emit logMessage(
            QStringLiteral("error"),
            QStringLiteral("reading the database: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    emit summaryAvailable(s);
}

void ReadService::setScope(const QString& environmentId, quint64 chainId, const QUrl& node)
{
    m_thread.post([this, environmentId, chainId, node] {
        Loop& l = *m_loop;
        if (l.environmentId != environmentId) {
            l.outboxRateBase = -1;
            l.outboxRate = 0;
        }
        // The same address on another chain, or in another lab environment, may be another
        // token: what was read holds for this scope only.
        if (l.environmentId != environmentId || l.chainId != chainId || l.tokenNode != node) {
            l.tokens.clear();
            l.tokenRetry.setRemainingTime(0);
        }
        l.tokenNode = node;
        l.environmentId = environmentId;
        l.chainId = chainId;
    });
    m_thread.wake();
}

void ReadService::refreshNow()
{
    m_thread.wake();
}

void ReadService::requestTablePage(const TableRequest& request)
{
    m_thread.post([this, request] {
        TablePage page;
        const QString env =
            request.environmentId.isEmpty() ? m_loop->environmentId : request.environmentId;
        if (!ensureOpen() || env.isEmpty()) {
            page.request = request;
            page.atEnd = true;
            page.error = QStringLiteral("no environment is being indexed yet");
        } else {
            try {
                store::SqliteContractReader reader(*m_loop->db);
                page = TableQuery::fetch(reader, env, request);
                if (env == m_loop->environmentId)
                    addTokens(page);
            } catch (const std::exception& e) {
                page.request = request;
                page.atEnd = true;
                page.error = QString::fromUtf8(e.what());
                emit logMessage(QStringLiteral("error"),
                                QStringLiteral("table: %1").arg(page.error));
            }
        }
        emit tablePageAvailable(page);
    });
}

QStringList ReadService::tokensToRead(const TablePage& page, const QSet<QString>& known, int max)
{
    const AmountColumns columns = amountColumns(page.request.kind);
    QStringList out;
    if (!columns.isValid())
        return out;
    for (const QStringList& row : page.rows) {
        const QString token = row.value(columns.token);
        if (out.size() >= max)
            break;
        if (!token.isEmpty() && !known.contains(token) && !out.contains(token))
            out << token;
    }
    return out;
}

void ReadService::addTokens(TablePage& page)
{
    Loop& l = *m_loop;
    const AmountColumns columns = amountColumns(page.request.kind);
    if (!columns.isValid() || !l.tokenNode.isValid())
        return;
    // A few reads per page at most: a page of 200 balances over 200 tokens must not wait
    // for 400 calls; the rest stay raw until a later refresh reads them. None while the
    // node did not answer lately.
    const QStringList toRead =
        l.tokenRetry.hasExpired()
            ? tokensToRead(page, QSet<QString>(l.tokens.keyBegin(), l.tokens.keyEnd()),
                           kMaxTokenReadsPerPage)
            : QStringList();
    std::unique_ptr<rpc::JsonRpcClient> client;
    std::unique_ptr<rpc::EthClient> eth;
    // And bounded in time: this thread also reads the summary and the diffs, which must not
    // wait behind a slow node. What is not read by then is read with a later page.
    const QDeadlineTimer budget(kTokenReadBudget);
    for (const QString& token : toRead) {
        if (budget.hasExpired())
            break;
        std::optional<chain::Address> address;
        try {
            address = chain::Address::fromHex(token, QStringLiteral("token"));
        } catch (const chain::ChainParseError&) {
        }
        if (!address) {
            l.tokens.insert(token, std::nullopt);
            continue;
        }
        if (!client) {
            // Stoppable, and never past the page's budget.
            client = std::make_unique<rpc::JsonRpcClient>(l.tokenNode);
            client->setStopToken(m_thread.stopToken());
            eth = std::make_unique<rpc::EthClient>(*client);
        }
        client->setTimeout(std::max(std::chrono::milliseconds(100),
                                    std::chrono::milliseconds(budget.remainingTime())));
        try {
            QString why;
            const auto info = rpc::TokenMetadataReader::read(*eth, *address, &why);
            if (!why.isEmpty())
                emit logMessage(QStringLiteral("warning"),
                                QStringLiteral("token metadata of %1").arg(why));
            l.tokens.insert(token, info);
        } catch (const rpc::RpcException& e) {
            // The node did not answer: raw units for now, asked again in half a minute
            // (not on every refresh, each waiting out the timeout).
            l.tokenRetry.setRemainingTime(std::chrono::seconds(30));
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("token metadata of %1 not read: %2")
                                .arg(token, QString::fromUtf8(e.what())));
            break;
        }
    }
    for (const QStringList& row : std::as_const(page.rows)) {
        const QString token = row.value(columns.token);
        if (const auto& info = l.tokens.value(token))
            page.tokens.insert(token, *info);
    }
}

void ReadService::requestReorgDiff(qint64 id)
{
    m_thread.post([this, id] {
        Loop& l = *m_loop;
        if (!ensureOpen() || l.environmentId.isEmpty())
            return;
        try {
            store::SqliteContractReader reader(*l.db);
            if (const auto diff = readReorgDiff(reader, l.environmentId, id))
                emit reorgDiffAvailable(*diff);
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("reorg diff: %1").arg(QString::fromUtf8(e.what())));
        }
    });
}

void ReadService::requestReport(quint64 ticket, const QString& environmentId, bool verify,
                                const QUrl& node, std::chrono::milliseconds rpcTimeout)
{
    m_thread.post([this, ticket, environmentId, verify, node, rpcTimeout] {
        Loop& l = *m_loop;
        if (!ensureOpen()) {
            emit reportFailed(ticket,
                              QStringLiteral("the database cannot be read: %1").arg(l.openError));
            return;
        }
        try {
            const QString env = environmentId.isEmpty() ? l.environmentId : environmentId;
            std::unique_ptr<rpc::JsonRpcClient> client;
            std::unique_ptr<rpc::EthClient> eth;
            if (verify && node.isValid()) {
                // Its own client, stopped with this thread: a report never holds up a stop.
                client = std::make_unique<rpc::JsonRpcClient>(node);
                client->setTimeout(rpcTimeout);
                client->setStopToken(m_thread.stopToken());
                eth = std::make_unique<rpc::EthClient>(*client);
            }
            emit reportAvailable(ticket, report::ReportBuilder::build(*l.db, env, eth.get()));
        } catch (const std::exception& e) {
            emit reportFailed(ticket, QString::fromUtf8(e.what()));
        }
    });
}

} // namespace forkscope::engine
