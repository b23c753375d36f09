#pragma once

#include "indexer/Coordination.h"

namespace forkscope::indexer {
class BackfillLedger;
}

namespace forkscope::store {

// Coordination on SQLite, where one process writes a file (a second writer is refused by
// the file's lock): every range is this writer's, handed out in block order right above the
// checkpoint, and this writer leads the head. The ranges are recorded in backfill_ranges
// (indexer::BackfillLedger) for the app and the report to show.
class SingleWriter : public indexer::Coordination
{
public:
    explicit SingleWriter(indexer::BackfillLedger& ledger) : m_ledger(ledger) {}

    void start() override;
    QList<indexer::RangeClaim> claim(const std::optional<indexer::Checkpoint>& cp,
                                     std::uint64_t from, std::uint64_t head, std::uint64_t size,
                                     int depth) override;
    bool rangesOpen(std::uint64_t) override { return false; }
    void keepAlive() override {}
    void failed(const indexer::RangeClaim& claim, const QString& error, bool givenUp) override;
    void release() override {}
    bool leadsHead() override { return true; }
    QString owner() const override { return QStringLiteral("this process"); }

private:
    indexer::BackfillLedger& m_ledger;
    std::uint64_t m_marked = 0; // the range last marked running (its first block + 1; 0: none)
};

} // namespace forkscope::store
