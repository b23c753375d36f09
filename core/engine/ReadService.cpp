#include "ReadService.h"
#include "ReorgDiffReader.h"
#include "SourceListReader.h"
#include "SummaryReader.h"
#include "TableQuery.h"
#include "forktree/ForkBlockReader.h"
#include "forktree/ForkTreeLimits.h"
#include "forktree/ForkTreeReader.h"
#include "report/ReportBuilder.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "rpc/RpcError.h"
#include "rpc/TokenMetadataReader.h"
#include "store/ContractReader.h"
#include "store/ReadOnlyStore.h"

#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>

namespace forkscope::engine {

// Everything below lives on the read thread only.
struct ReadService::Loop
{
    std::unique_ptr<store::ReadOnlyStore> db;
    QString openError; // the last reason the database could not be opened
    QString readError; // the last reason a summary could not be read (logged once)
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
    // What was read while an earlier environment of this run was live, by environment (it
    // holds for that environment's chain, which a lab reset replaced): its archived window
    // shows the amounts as the live one did. Oldest first, bounded.
    QList<QPair<QString, QHash<QString, chain::TokenInfo>>> earlier;
    // The number of each block of the last fork tree window served: a click on one of them
    // finds it by number (the stores index blocks by number, not by hash).
    QHash<chain::Hash32, quint64> treeNumbers;
    void rememberTokens()
    {
        if (environmentId.isEmpty())
            return;
        QHash<QString, chain::TokenInfo> known;
        for (auto it = tokens.cbegin(); it != tokens.cend() && known.size() < kRememberedTokens;
             ++it)
            if (it.value())
                known.insert(it.key(), *it.value());
        for (qsizetype i = 0; i < earlier.size(); ++i)
            if (earlier[i].first == environmentId)
                earlier.removeAt(i--);
        if (!known.isEmpty())
            earlier.append({environmentId, known});
        while (earlier.size() > kRememberedEnvironments)
            earlier.removeFirst();
    }
    QHash<QString, chain::TokenInfo> remembered(const QString& env) const
    {
        for (const auto& e : earlier)
            if (e.first == env)
                return e.second;
        return {};
    }
};

ReadService::ReadService(QString dbPath, QObject* parent)
    : QObject(parent), m_dbPath(std::move(dbPath)), m_thread(QStringLiteral("forkscope-read"))
{
    qRegisterMetaType<DbSummary>();
    qRegisterMetaType<TablePage>();
    qRegisterMetaType<ReorgDiff>();
    qRegisterMetaType<forktree::ForkTreeRequest>();
    qRegisterMetaType<forktree::ForkTreeSnapshot>();
    qRegisterMetaType<forktree::ForkBlockRows>();
    qRegisterMetaType<SourceList>();
    qRegisterMetaType<CodeCheck>();
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
        // indexer creates (and migrates) the database; until then there is nothing to read.
        l.db = store::ReadOnlyStore::open(m_dbPath);
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
    try {
        s = readSummary(l.db->reader(), l.environmentId, l.chainId);
        if (l.outboxRateBase < 0 || !l.outboxRateClock.isValid()) {
            l.outboxRateClock.start();
            l.outboxRateBase = s.outboxDelivered;
        } else if (l.outboxRateClock.elapsed() >= 1000) {
            l.outboxRate = std::max(0.0, double(s.outboxDelivered - l.outboxRateBase) * 1000.0 /
                                             double(l.outboxRateClock.restart()));
            l.outboxRateBase = s.outboxDelivered;
        }
        s.outboxDeliveredPerSecond = l.outboxRate;
    } catch (const std::exception& e) {
        // Opened again on the next step: a server that went away and came back is read
        // again. Said once per reason, not once a second.
        const QString why = QString::fromUtf8(e.what());
        if (why != l.readError)
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("reading the database: %1").arg(why));
        l.readError = why;
        l.db.reset();
        return;
    }
    if (!l.readError.isEmpty())
        emit logMessage(QStringLiteral("ok"), QStringLiteral("the database is read again"));
    l.readError.clear();
    s.schemaVersion = l.db->schemaVersion();
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
            if (l.environmentId != environmentId)
                l.rememberTokens();
            l.tokens.clear();
            l.tokenRetry.setRemainingTime(0);
        }
        if (l.environmentId != environmentId)
            l.treeNumbers.clear();
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
                page = TableQuery::fetch(m_loop->db->reader(), env, request);
                if (env == m_loop->environmentId) {
                    addTokens(page);
                } else {
                    // An earlier environment of this run: what was read while it was live.
                    const AmountColumns columns = amountColumns(page.request.kind);
                    const QHash<QString, chain::TokenInfo> known = m_loop->remembered(env);
                    for (const QStringList& row : std::as_const(page.rows))
                        if (columns.isValid() && known.contains(row.value(columns.token)))
                            page.tokens.insert(row.value(columns.token),
                                               known.value(row.value(columns.token)));
                }
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
    if (!columns.isValid())
        return {};
    QStringList tokens;
    for (const QStringList& row : page.rows)
        tokens << row.value(columns.token);
    return tokensToRead(tokens, known, max);
}

QStringList ReadService::tokensToRead(const QStringList& tokens, const QSet<QString>& known,
                                      int max)
{
    QStringList out;
    for (const QString& token : tokens) {
        if (out.size() >= max)
            break;
        if (!token.isEmpty() && !known.contains(token) && !out.contains(token))
            out << token;
    }
    return out;
}

void ReadService::addTokens(TablePage& page)
{
    const AmountColumns columns = amountColumns(page.request.kind);
    if (!columns.isValid())
        return;
    QStringList tokens;
    for (const QStringList& row : std::as_const(page.rows))
        tokens << row.value(columns.token);
    page.tokens = readTokens(tokens);
}

void ReadService::addTokens(ReorgDiff& diff)
{
    QStringList tokens;
    for (const ReorgDiff::Item& item : std::as_const(diff.items))
        tokens << item.contract;
    diff.tokens = readTokens(tokens);
}

QHash<QString, chain::TokenInfo> ReadService::readTokens(const QStringList& tokens)
{
    Loop& l = *m_loop;
    if (!l.tokenNode.isValid())
        return {};
    // A few reads per page at most: a page of 200 balances over 200 tokens must not wait
    // for 400 calls; the rest stay raw until a later refresh reads them. None while the
    // node did not answer lately.
    const QStringList toRead =
        l.tokenRetry.hasExpired()
            ? tokensToRead(tokens, QSet<QString>(l.tokens.keyBegin(), l.tokens.keyEnd()),
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
    QHash<QString, chain::TokenInfo> known;
    for (const QString& token : tokens)
        if (const auto& info = l.tokens.value(token))
            known.insert(token, *info);
    return known;
}

void ReadService::addReportTokens(report::CheckpointReport& r, const QUrl& node)
{
    Loop& l = *m_loop;
    QStringList contracts;
    for (const auto& e : r.reorgs)
        for (const auto& d : e.diffItems)
            if (!d.contract.isEmpty() && !contracts.contains(d.contract.toLower()))
                contracts << d.contract.toLower();
    std::unique_ptr<rpc::JsonRpcClient> client;
    std::unique_ptr<rpc::EthClient> eth;
    const QDeadlineTimer budget(kTokenReadBudget);
    int reads = 0;
    for (const QString& token : std::as_const(contracts)) {
        if (node == l.tokenNode && l.tokens.contains(token)) {
            if (const auto& info = l.tokens.value(token))
                r.tokens.insert(token, *info);
            continue;
        }
        if (!node.isValid() || budget.hasExpired() || ++reads > kMaxTokenReadsPerPage)
            continue;
        try {
            const auto address = chain::Address::fromHex(token, QStringLiteral("token"));
            if (!client) {
                client = std::make_unique<rpc::JsonRpcClient>(node);
                client->setStopToken(m_thread.stopToken());
                eth = std::make_unique<rpc::EthClient>(*client);
            }
            client->setTimeout(std::max(std::chrono::milliseconds(100),
                                        std::chrono::milliseconds(budget.remainingTime())));
            if (const auto info = rpc::TokenMetadataReader::read(*eth, address))
                r.tokens.insert(token, *info);
        } catch (const std::exception&) {
            break; // the node did not answer: raw units, said so in the report
        }
    }
    if (!r.tokens.isEmpty())
        r.tokensReadFrom = node.toString(QUrl::RemoveUserInfo);
}

void ReadService::requestReorgDiff(qint64 id)
{
    m_thread.post([this, id] {
        Loop& l = *m_loop;
        if (!ensureOpen() || l.environmentId.isEmpty())
            return;
        try {
            if (auto diff = readReorgDiff(l.db->reader(), l.environmentId, id)) {
                addTokens(*diff); // amounts in the token's units, as in the tables
                emit reorgDiffAvailable(*diff);
            }
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("reorg diff: %1").arg(QString::fromUtf8(e.what())));
        }
    });
}

void ReadService::requestForkTree(const forktree::ForkTreeRequest& request)
{
    {
        QMutexLocker lock(&m_forkTreeMutex);
        const bool queued = m_forkTreeNext.has_value();
        m_forkTreeNext = request;
        if (queued)
            return; // the read already queued takes this request instead
    }
    m_thread.post([this] {
        std::optional<forktree::ForkTreeRequest> request;
        {
            QMutexLocker lock(&m_forkTreeMutex);
            request.swap(m_forkTreeNext);
        }
        Loop& l = *m_loop;
        if (!request || !ensureOpen() || l.environmentId.isEmpty())
            return;
        try {
            forktree::ForkTreeWindow w =
                forktree::readForkTree(l.db->reader(), l.environmentId, *request);
            l.treeNumbers.clear();
            for (const forktree::TreeBlock& b : w.canonical)
                l.treeNumbers.insert(b.hash, b.number);
            for (const forktree::OrphanBranch& branch : w.branches)
                for (const forktree::TreeBlock& b : branch.blocks)
                    l.treeNumbers.insert(b.hash, b.number);
            for (const forktree::NodeSighting& s : w.sightings)
                l.treeNumbers.insert(s.hash, s.number);
            emit forkTreeAvailable(forktree::laidOut(std::move(w)));
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("fork tree: %1").arg(QString::fromUtf8(e.what())));
        }
    });
}

void ReadService::requestForkBlock(const chain::Hash32& hash)
{
    m_thread.post([this, hash] {
        Loop& l = *m_loop;
        if (!ensureOpen() || l.environmentId.isEmpty())
            return;
        try {
            const auto known = l.treeNumbers.constFind(hash);
            const auto rows = forktree::readForkBlock(
                l.db->reader(), l.environmentId, hash,
                known != l.treeNumbers.cend() ? std::optional<quint64>(*known) : std::nullopt,
                forktree::kMaxBlockRows);
            if (rows)
                emit forkBlockAvailable(*rows);
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("fork tree block: %1").arg(QString::fromUtf8(e.what())));
        }
    });
}

void ReadService::requestSourceList()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (l.environmentId.isEmpty())
            return;
        SourceList list;
        list.environmentId = l.environmentId;
        if (!ensureOpen()) {
            list.error = QStringLiteral("the database cannot be read: %1").arg(l.openError);
            emit sourceListAvailable(list);
            return;
        }
        try {
            list = readSourceList(l.db->reader(), l.environmentId, l.chainId);
        } catch (const std::exception& e) {
            l.db.reset(); // opened again on the next read
            list.error = QString::fromUtf8(e.what());
        }
        emit sourceListAvailable(list);
    });
}

void ReadService::requestCodeCheck(quint64 ticket, const QString& address)
{
    m_thread.post([this, ticket, address] {
        Loop& l = *m_loop;
        CodeCheck c;
        c.ticket = ticket;
        c.address = address;
        std::optional<chain::Address> a;
        try {
            a = chain::Address::fromHex(address, QStringLiteral("address"));
        } catch (const chain::ChainParseError& e) {
            c.error = e.message();
        }
        if (a && !l.tokenNode.isValid())
            c.error = QStringLiteral("no node is connected yet: start the engine first");
        if (a && c.error.isEmpty()) {
            rpc::JsonRpcClient client(l.tokenNode);
            client.setStopToken(m_thread.stopToken());
            client.setTimeout(kCodeCheckTimeout);
            try {
                const QJsonValue reply = client.callBlocking(
                    QStringLiteral("eth_getCode"), {a->toHex(), QStringLiteral("latest")});
                // Strict 0x data: a null, a number or an odd digit is no answer, not "no code".
                const QByteArray code =
                    chain::hex::parseData(reply, QStringLiteral("eth_getCode(%1)").arg(a->toHex()));
                c.codeBytes = code.size();
                c.verdict =
                    code.isEmpty() ? CodeCheck::Verdict::NoCode : CodeCheck::Verdict::HasCode;
            } catch (const rpc::RpcException& e) {
                c.error =
                    QStringLiteral("the node %1 did not answer eth_getCode: %2")
                        .arg(l.tokenNode.toString(QUrl::RemoveUserInfo), e.error().toString());
            } catch (const chain::ChainParseError& e) {
                c.error = QStringLiteral("the node %1 answered eth_getCode with no code data: %2")
                              .arg(l.tokenNode.toString(QUrl::RemoveUserInfo), e.message());
            }
        }
        emit codeChecked(c);
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
            report::CheckpointReport r =
                report::ReportBuilder::build(l.db->reader(), env, eth.get());
            addReportTokens(r, node);
            emit reportAvailable(ticket, r);
        } catch (const std::exception& e) {
            emit reportFailed(ticket, QString::fromUtf8(e.what()));
        }
    });
}

} // namespace forkscope::engine
