#include "IndexerLab.h"
#include "EnvironmentDump.h"
#include "chain/Hex.h"
#include "chain/SignedAmount.h"
#include "indexer/TransferDecoder.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/ReadOnlyStore.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QThread>
#include <QTimer>
#include <algorithm>

namespace forkscope::test {

// The balance sums below decode the logs by hand; only the number type is shared.
using Signed = chain::SignedAmount;

QString ProcessRun::describe() const
{
    return QStringLiteral("finished=%1 status=%2 code=%3\n--- stdout\n%4\n--- stderr\n%5")
        .arg(finished)
        .arg(exitStatus == QProcess::NormalExit ? QStringLiteral("normal")
                                                : QStringLiteral("crash"))
        .arg(exitCode)
        .arg(out.right(3000), err.right(3000));
}

ThreeNodes::ThreeNodes(const QUrl& upstream) : good(upstream), lagging(upstream), dead(upstream)
{
    good.listen();
    lagging.listen();
    dead.listen();
    lagging.setLagBlocks(5);
    dead.setOffline(true);
}

ProcessRun waitForProcess(QProcess& p, int timeoutMs)
{
    ProcessRun r;
    if (p.state() != QProcess::NotRunning) {
        QEventLoop loop;
        QObject::connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    r.finished = p.state() == QProcess::NotRunning;
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitCode();
    r.exitStatus = p.exitStatus();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

ProcessRun runForkscope(const QStringList& args, const QProcessEnvironment& environment,
                        int timeoutMs)
{
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(QStringLiteral(FORKSCOPE_BINARY), args);
    p.waitForStarted(5000);
    return waitForProcess(p, timeoutMs);
}

IndexerLab::IndexerLab(const lab::Devnet::Options& options)
    : m_devnet(std::make_unique<lab::Devnet>())
{
    m_devnet->start(options);
    m_rpc = std::make_unique<rpc::JsonRpcClient>(m_devnet->url());
    m_eth = std::make_unique<rpc::EthClient>(*m_rpc);
    m_sender = lab::DemoToken::defaultSender(*m_rpc);
}

IndexerLab::IndexerLab(const QString& db, const lab::Devnet::Options& options) : IndexerLab(options)
{
    m_db = db;
}

IndexerLab::~IndexerLab() = default;

bool IndexerLab::onPostgres() const
{
    return store::pg::isPostgresUrl(db());
}

lab::DemoToken& IndexerLab::deployToken(const QString& symbol)
{
    m_tokens.append(lab::DemoToken::deploy(*m_rpc, m_sender, symbol + QStringLiteral(" token"),
                                           symbol, chain::U256("1000000000000000000000000")));
    return m_tokens.last();
}

QList<chain::Address> IndexerLab::contracts() const
{
    QList<chain::Address> out;
    for (const auto& t : m_tokens)
        out << t.address();
    return out;
}

QStringList IndexerLab::contractArgs() const
{
    QStringList out;
    for (const auto& t : m_tokens)
        out << QStringLiteral("--contract") << t.address().toHex();
    return out;
}

void IndexerLab::sprayAll(int txs, int perTx, int holders)
{
    m_sprayOffset =
        lab::DemoToken::sprayBlocks(*m_rpc, m_tokens, txs, perTx, quint64(holders), m_sprayOffset);
}

void IndexerLab::mine(int blocks)
{
    // In calls of at most 250 blocks: 1,500 in one call outlasted the client's 10 s timeout
    // on a loaded 2-core machine.
    constexpr int kPerCall = 250;
    for (int left = blocks; left > 0; left -= kPerCall)
        m_rpc->callBlocking(QStringLiteral("anvil_mine"),
                            {chain::hex::encodeQuantity(quint64(std::min(left, kPerCall)))});
}

void IndexerLab::reorg(int depth, const QList<QPair<QJsonObject, int>>& reinclude)
{
    QJsonArray pairs;
    for (const auto& [tx, offset] : reinclude)
        pairs.append(QJsonArray{tx, offset});
    m_rpc->callBlocking(QStringLiteral("anvil_reorg"), {depth, pairs});
}

QStringList IndexerLab::indexArgs(const QString& env, const QStringList& extra,
                                  const QUrl& rpcUrl) const
{
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     (rpcUrl.isEmpty() ? m_devnet->url() : rpcUrl).toString(),
                     QStringLiteral("--db"),
                     db(),
                     QStringLiteral("--env"),
                     env};
    return args + contractArgs() + extra;
}

ProcessRun IndexerLab::runIndex(const QString& env, const QStringList& extra, const QUrl& rpcUrl,
                                const QProcessEnvironment& environment, int timeoutMs)
{
    return runForkscope(indexArgs(env, extra, rpcUrl), environment, timeoutMs);
}

QStringList IndexerLab::verify(const QString& env)
{
    QStringList problems;
    const auto store = readStore();
    store::ContractReader& reader = store->reader();
    indexer::InvariantChecker checker(reader, *m_eth);
    const auto report = checker.check(env, QStringLiteral("default"), contracts());
    problems << report.violations;

    // Independent: balances from the node's logs, decoded here by hand.
    // From the block the environment was indexed from (--from-block): a run that starts
    // after the deploy blocks never saw their mints, and must not be held to them.
    auto cp = reader.query(QStringLiteral("SELECT block_number, coalesce(start_block, 0) FROM "
                                          "indexer_checkpoints WHERE environment_id = ?"),
                           {env});
    if (!cp->next())
        return problems << QStringLiteral("no checkpoint");
    rpc::LogFilter f;
    f.fromBlock = cp->value(1).toULongLong();
    f.toBlock = cp->value(0).toULongLong();
    f.addresses = contracts();
    const auto logs = m_eth->getLogs(f);
    QHash<QString, Signed> sums;
    const QString zero = QStringLiteral("0x0000000000000000000000000000000000000000");
    const QString topic =
        QStringLiteral("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    for (const auto& log : logs) {
        if (log.topics.size() != 3 || log.topics[0].toHex() != topic || log.data.size() != 32)
            continue;
        const QString from = QStringLiteral("0x") + log.topics[1].toHex().right(40);
        const QString to = QStringLiteral("0x") + log.topics[2].toHex().right(40);
        Signed v = 0;
        for (char c : log.data)
            v = v * 256 + static_cast<unsigned char>(c);
        if (from != zero)
            sums[log.address.toHex() + from] -= v;
        if (to != zero)
            sums[log.address.toHex() + to] += v;
    }
    auto b = reader.query(
        QStringLiteral(
            "SELECT contract, holder, balance FROM token_balances WHERE environment_id = ?"),
        {env});
    qint64 rows = 0;
    while (b->next()) {
        ++rows;
        const QString key = b->value(0).toString() + b->value(1).toString();
        if (!sums.contains(key) ||
            QString::fromStdString(sums.value(key).str()) != b->value(2).toString())
            problems << QStringLiteral("independent check: balance %1 = %2, node's logs say %3")
                            .arg(key, b->value(2).toString(),
                                 sums.contains(key) ? QString::fromStdString(sums.value(key).str())
                                                    : QStringLiteral("no transfers"));
    }
    if (rows != sums.size())
        problems << QStringLiteral(
                        "independent check: %1 balance rows, node's logs have %2 holders")
                        .arg(rows)
                        .arg(sums.size());
    return problems;
}

QString IndexerLab::dump() const
{
    return databaseDump(db());
}

std::shared_ptr<store::ReadOnlyStore> IndexerLab::readStore() const
{
    if (!onPostgres())
        return store::ReadOnlyStore::open(db());
    if (!m_pgReader || m_pgReaderDb != db()) {
        m_pgReader = store::ReadOnlyStore::open(db());
        m_pgReaderDb = db();
    }
    return m_pgReader;
}

QStringList IndexerLab::rows(const QString& sql, const QVariantList& args) const
{
    const auto store = readStore();
    return queryRows(store->reader(), sql, args);
}

qint64 IndexerLab::count(const QString& sql, const QVariantList& args) const
{
    const auto store = readStore();
    const auto q = store->reader().query(sql, args);
    return q->next() ? q->value(0).toLongLong() : -1;
}

QString IndexerLab::text(const QString& sql, const QVariantList& args) const
{
    const auto store = readStore();
    const auto q = store->reader().query(sql, args);
    return q->next() ? q->value(0).toString() : QString();
}

void IndexerLab::exec(const QString& sql) const
{
    if (onPostgres())
        store::pg::PgConnection::open(db())->exec(sql.toUtf8().constData());
    else
        store::Database::open(db())->run(sql);
}

QString IndexerLab::jsonText(const QString& column, const QString& key) const
{
    return onPostgres() ? QStringLiteral("(%1::json ->> '%2')").arg(column, key)
                        : QStringLiteral("json_extract(%1, '$.%2')").arg(column, key);
}

qint64 IndexerLab::checkpointOf(const QString& env) const
{
    if (!onPostgres() && !QFileInfo::exists(db()))
        return -1;
    try {
        return count(QStringLiteral("SELECT coalesce(max(block_number), -1) FROM "
                                    "indexer_checkpoints WHERE environment_id = ?"),
                     {env});
    } catch (const store::StoreError&) {
        // Read-only opens refuse a store whose schema is not yet the latest: the indexer
        // is still creating it.
        return -1;
    }
}

bool IndexerLab::checkpointOnTheNodesHead(const QString& env)
{
    const qint64 number = checkpointOf(env);
    if (number < 0 || quint64(number) != eth().blockNumber())
        return false;
    // The same height is not the same chain: a reorg can bring the head back to the height
    // the indexer stored on the old branch, until its next round notices.
    try {
        const QString stored = text(QStringLiteral("SELECT block_hash FROM indexer_checkpoints "
                                                   "WHERE environment_id = ? AND block_number = ?"),
                                    {env, number});
        const auto header = eth().blockByNumber(quint64(number));
        return header && !stored.isEmpty() && stored == header->hash.toHex();
    } catch (const store::StoreError&) {
        return false;
    }
}

} // namespace forkscope::test
