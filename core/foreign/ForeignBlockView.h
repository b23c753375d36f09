#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::foreign {

// One block of a watched table next to what the chain holds there: the rows the audit
// query yields for the block and the node's Transfers of the audited contracts, each as
// text (0x hex, decimal amounts). What a finding is opened in.
struct ForeignBlockView
{
    // Rows and Transfers kept per side; more are counted.
    static constexpr qsizetype kMaxEvents = 2000;

    struct Event
    {
        std::optional<std::uint64_t> logIndex; // a row may give a position instead
        QString txHash;                        // empty when the row has none
        QString contract;
        QString from, to, value; // empty when the row has no such column
        QString blockHash;       // the row's block hash, or the first digits of it
        QString label;           // the row's label; empty for the chain's
    };

    quint64 watchId = 0;
    std::uint64_t block = 0;
    QString canonicalHash; // the node's block hash
    QList<Event> rows;
    QList<Event> chain;
    qsizetype rowsLeftOut = 0;
    QString error; // why the block could not be read (then the lists are empty)
};

} // namespace forkscope::foreign

Q_DECLARE_METATYPE(forkscope::foreign::ForeignBlockView)
