#pragma once

#include "CheckpointReport.h"

#include <QVariantList>
#include <memory>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
class ContractRows;
} // namespace forkscope::store

namespace forkscope::report {

// The parts of a checkpoint report that ReportBuilder reads section by section: the counts,
// the chart series, the node's view of each checkpoint and the invariant verdict.
class ReportSections
{
public:
    ReportSections(store::ContractReader& reader, CheckpointReport& r);

    // Counts of the read surface and the backfill ranges (not the outbox's).
    void readCounts();
    void readSeries();
    // The node's chain and each checkpoint's hash at export time; RPC failures become
    // "unreachable", never an exception.
    void checkNode(rpc::EthClient& eth);
    // The four invariants against the node, over `declared` (the contracts the environment
    // says it covers: a contract with no stored row is exactly where a missed log would
    // hide) and every contract the stored rows make claims about.
    void checkInvariants(rpc::EthClient& eth, const QStringList& declared);

private:
    qint64 scalar(const char* sql);
    struct Thinned
    {
        qint64 total = 0; // the rows before thinning
        std::unique_ptr<store::ContractRows> rows;
    };
    // `columns` of `from`'s rows in scope (and `where`, " AND ..."), ordered by `orderBy`,
    // thinned in the query to at most kMaxSeriesPoints evenly spaced rows, the first and last
    // among them; each row's number in that order follows the columns.
    Thinned evenlyThinned(const QString& columns, const QString& from, const QString& where,
                          const QString& orderBy);

    store::ContractReader& m_reader;
    CheckpointReport& m_r;
    QVariantList m_scope;
};

} // namespace forkscope::report
