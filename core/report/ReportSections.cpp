#include "ReportSections.h"
#include "Downsample.h"
#include "ReportError.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "indexer/InvariantChecker.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QDateTime>

namespace forkscope::report {

namespace {

constexpr int kMaxBackfillErrors = 5;

std::optional<double> unixSeconds(const QString& iso)
{
    QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(iso, Qt::ISODate);
    if (!t.isValid())
        return std::nullopt;
    return double(t.toMSecsSinceEpoch()) / 1000.0;
}

} // namespace

ReportSections::ReportSections(store::ContractReader& reader, CheckpointReport& r)
    : m_reader(reader), m_r(r), m_scope{r.environment.id, qint64(r.environment.chainId)}
{
}

ReportSections::Thinned ReportSections::evenlyThinned(const QString& columns, const QString& from,
                                                      const QString& where, const QString& orderBy)
{
    // The rows counted first (the whole set's size sets the spacing), under the same filter;
    // then numbered in `orderBy`'s order, and only those evenRows() names are returned.
    const QString scope =
        QStringLiteral("FROM %1 WHERE environment_id = ? AND chain_id = ?%2").arg(from, where);
    Thinned t;
    t.total = m_reader.scalar(QStringLiteral("SELECT count(*) ") + scope, m_scope);
    const EvenRows keep = evenRows(t.total, CheckpointReport::kMaxSeriesPoints);
    t.rows = m_reader.query(QStringLiteral("SELECT %1, rn FROM (SELECT %1, row_number() OVER "
                                           "(ORDER BY %2) AS rn %3) AS r WHERE ((rn - 1) * ?) % "
                                           "? < ? ORDER BY rn")
                                .arg(columns, orderBy, scope),
                            m_scope + QVariantList{keep.scale, keep.modulus, keep.scale});
    return t;
}

qint64 ReportSections::scalar(const char* sql)
{
    return m_reader.scalar(QString::fromLatin1(sql), m_scope);
}

void ReportSections::readCounts()
{
    Counts& c = m_r.counts;
    c.blocks = scalar("SELECT count(*) FROM blocks WHERE environment_id = ? AND chain_id = ?");
    c.logs = scalar("SELECT count(*) FROM logs WHERE environment_id = ? AND chain_id = ?");
    c.transfers =
        scalar("SELECT count(*) FROM transfer_events WHERE environment_id = ? AND chain_id = ?");
    c.contracts = scalar("SELECT count(DISTINCT contract) FROM transfer_events WHERE "
                         "environment_id = ? AND chain_id = ?");
    c.balances =
        scalar("SELECT count(*) FROM token_balances WHERE environment_id = ? AND chain_id = ?");
    c.holders = scalar("SELECT count(DISTINCT holder) FROM token_balances WHERE "
                       "environment_id = ? AND chain_id = ? AND balance <> '0'");
    c.reorgs = m_r.reorgs.size();
    c.orphanedBlocks =
        scalar("SELECT count(*) FROM orphaned_blocks WHERE environment_id = ? AND chain_id = ?");
    const auto b =
        m_reader.query(QStringLiteral("SELECT status, count(*), sum(to_block - from_block "
                                      "+ 1), sum(attempts) FROM backfill_ranges WHERE "
                                      "environment_id = ? AND chain_id = ? GROUP BY "
                                      "status ORDER BY status"),
                       m_scope);
    while (b->next())
        c.backfill.append({b->value(0).toString(),
                           b->value(1).toLongLong(),
                           b->value(2).toLongLong(),
                           b->value(3).toLongLong(),
                           {}});
    const auto e =
        m_reader.query(QStringLiteral("SELECT status, last_error FROM backfill_ranges "
                                      "WHERE environment_id = ? AND chain_id = ? AND "
                                      "last_error IS NOT NULL AND last_error <> '' ORDER "
                                      "BY updated_at DESC, from_block"),
                       m_scope);
    while (e->next())
        for (BackfillStatusCount& s : c.backfill)
            if (s.status == e->value(0).toString() && s.lastErrors.size() < kMaxBackfillErrors &&
                !s.lastErrors.contains(e->value(1).toString()))
                s.lastErrors << e->value(1).toString();
}

void ReportSections::readSeries()
{
    // Each series is thinned in SQL to at most kMaxSeriesPoints rows (Downsample.h): the
    // rows are never all read, whatever the environment's size.
    Series& s = m_r.series;
    const int maxPoints = CheckpointReport::kMaxSeriesPoints;

    // Blocks evenly spaced by number, the first and the last: the cursor's shape and its end.
    const Thinned blocks =
        evenlyThinned(QStringLiteral("block_timestamp, block_number"), QStringLiteral("blocks"),
                      QString(), QStringLiteral("block_number"));
    s.blocksTotal = blocks.total;
    const auto& b = blocks.rows;
    while (b->next())
        s.blocks.append({b->value(0).toDouble(), b->value(1).toDouble()});

    for (const ReorgEntry& e : m_r.reorgs)
        if (const auto t = unixSeconds(e.detectedAt))
            s.reorgs.append({*t, e.depth, e.reason});

    // Delivered so far, over time: the row number in delivery-time order is the running total.
    const Thinned delivered = evenlyThinned(
        QStringLiteral("delivered_at"), QStringLiteral("outbox"),
        QStringLiteral(" AND delivered_at IS NOT NULL"), QStringLiteral("delivered_at"));
    s.outboxDeliveredTotal = delivered.total;
    const auto& d = delivered.rows;
    while (d->next())
        if (const auto t = unixSeconds(d->value(0).toString()))
            s.outboxDelivered.append({*t, d->value(1).toDouble()});

    // Undelivered rows per span of blocks, the spans as wide as keeps them within the bound.
    // One filter for both queries: the span that sets the width is the grouped rows' own.
    const QString pending =
        QStringLiteral("FROM outbox WHERE environment_id = ? AND chain_id = ? AND delivered_at "
                       "IS NULL AND failed_at IS NULL");
    const auto span = m_reader.query(
        QStringLiteral("SELECT min(block_number), max(block_number) ") + pending, m_scope);
    if (!span->next() || span->value(0).isNull())
        return;
    const qint64 first = span->value(0).toLongLong();
    const qint64 width = bucketBlocks(first, span->value(1).toLongLong(), maxPoints);
    const auto p = m_reader.query(QStringLiteral("SELECT min(block_number), count(*) ") + pending +
                                      QStringLiteral(" GROUP BY (block_number - ?) / ? ORDER BY 1"),
                                  m_scope + QVariantList{first, width});
    while (p->next())
        s.outboxPendingByBlock.append({p->value(0).toDouble(), p->value(1).toDouble()});
}

void ReportSections::checkNode(rpc::EthClient& eth)
{
    NodeSummary& n = m_r.node;
    n.url = eth.rpc().endpoint().toString(QUrl::RemoveUserInfo);
    n.checked = true;
    n.checkedAt = store::nowUtc();
    try {
        n.chainId = eth.chainId();
        n.head = eth.blockNumber();
        const auto genesis = eth.blockByNumber(0);
        if (!genesis)
            throw ReportError(QStringLiteral("the node answered null for block 0"));
        n.genesisHash = genesis->hash.toHex();
        n.reachable = true;
        n.sameChain =
            *n.chainId == m_r.environment.chainId && n.genesisHash == m_r.environment.genesisHash;
    } catch (const rpc::RpcException& e) {
        n.error = e.error().toString();
    } catch (const ReportError& e) {
        n.error = e.message();
    }

    for (CheckpointEntry& c : m_r.checkpoints) {
        Verification& v = c.verification;
        v.method = QStringLiteral("eth_getBlockByNumber(%1) on %2")
                       .arg(chain::hex::encodeQuantity(std::uint64_t(c.blockNumber)), n.url);
        v.checkedAt = store::nowUtc();
        if (!n.reachable) {
            // One failed round trip is enough to know; do not wait a timeout per row.
            v.status = VerificationStatus::Unreachable;
            v.error = n.error;
            v.method += QStringLiteral(" (not sent: the node did not answer the chain checks)");
            continue;
        }
        try {
            const auto block = eth.blockByNumber(std::uint64_t(c.blockNumber));
            v.checkedAt = store::nowUtc();
            if (!block) {
                v.status = VerificationStatus::Missing;
            } else {
                v.nodeHash = block->hash.toHex();
                v.status = v.nodeHash == c.blockHash ? VerificationStatus::Canonical
                                                     : VerificationStatus::Reorged;
            }
        } catch (const rpc::RpcException& e) {
            v.status = VerificationStatus::Unreachable;
            v.error = e.error().toString();
        }
    }
}

void ReportSections::checkInvariants(rpc::EthClient& eth, const QStringList& declared)
{
    InvariantVerdict& v = m_r.invariants;
    const NodeSummary& n = m_r.node;
    if (!n.reachable) {
        v.summary = QStringLiteral("not checked: node unreachable (%1)").arg(n.error);
        return;
    }
    if (!n.sameChain) {
        v.summary = QStringLiteral("not checked: the node at %1 serves chain %2 with genesis "
                                   "%3, not this environment's chain %4 with genesis %5 (the "
                                   "lab was reset, or the URL points elsewhere)")
                        .arg(n.url)
                        .arg(n.chainId.value_or(0))
                        .arg(n.genesisHash)
                        .arg(m_r.environment.chainId)
                        .arg(m_r.environment.genesisHash);
        return;
    }
    try {
        // The contracts the checkpoints say they cover (schema v3; a contract with no
        // stored row is exactly where a missed log would hide), plus every contract the
        // stored rows make claims about.
        // One DISTINCT per table, merged here: a UNION of the three had SQLite keep every
        // row's hex text in one temporary B-tree, twice the time (bench/README.md).
        QStringList names = declared;
        for (const char* sql :
             {"SELECT DISTINCT address FROM logs WHERE environment_id = ? AND chain_id = ?",
              "SELECT DISTINCT contract FROM transfer_events WHERE environment_id = ? AND "
              "chain_id = ?",
              "SELECT DISTINCT contract FROM token_balances WHERE environment_id = ? AND "
              "chain_id = ?",
              "SELECT child FROM factory_children WHERE environment_id = ? AND chain_id = ?"}) {
            const auto q = m_reader.query(QString::fromLatin1(sql), m_scope);
            while (q->next())
                names << q->value(0).toString();
        }
        names.sort();
        names.removeDuplicates();
        QList<chain::Address> contracts;
        for (const QString& name : names) {
            contracts << chain::Address::fromHex(name, QStringLiteral("stored contract"));
            v.contractsChecked << name;
        }
        QStringList sources;
        for (const CheckpointEntry& c : m_r.checkpoints)
            sources << c.sourceId;
        if (sources.isEmpty())
            sources << QStringLiteral("default");
        indexer::InvariantChecker checker(m_reader, eth);
        indexer::InvariantReport last;
        for (const QString& source : sources) {
            last = checker.check(m_r.environment.id, source, contracts);
            for (const QString& violation : last.violations)
                v.violations << (sources.size() > 1 ? source + QStringLiteral(": ") + violation
                                                    : violation);
        }
        v.state = v.violations.isEmpty() ? InvariantState::Hold : InvariantState::Violated;
        v.summary =
            v.violations.isEmpty()
                ? QStringLiteral("%1, checked against %2 at %3")
                      .arg(last.summary(), n.url, store::nowUtc())
                : QStringLiteral("%1 against %2: %3")
                      .arg(v.violations.size() == 1
                               ? QStringLiteral("1 invariant violation")
                               : QStringLiteral("%1 invariant violations").arg(v.violations.size()))
                      .arg(n.url)
                      .arg(v.violations.mid(0, 3).join(QStringLiteral("; ")));
    } catch (const rpc::RpcException& e) {
        v = InvariantVerdict{};
        v.summary = QStringLiteral("not checked: the node failed during the check (%1)")
                        .arg(QString::fromUtf8(e.what()));
    } catch (const chain::ChainParseError& e) {
        v = InvariantVerdict{};
        v.summary = QStringLiteral("not checked: bad data in the database (%1)").arg(e.message());
    }
}

} // namespace forkscope::report
