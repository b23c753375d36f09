#pragma once

#include "chain/LogEntry.h"

#include <QString>
#include <QStringList>
#include <QVariant>

namespace forkscope::abi {
class EventRegistry;
}
namespace forkscope::indexer {
struct Transfer;
}

namespace forkscope::audit {

// Every stored column a log determines, as the contract's read surface shows it (lowercase
// 0x hex, decimal amounts), compared with the node's log of the same block and log index.
// A column that differs was edited (or corrupted) after the indexer wrote it: the node's
// log is the reference, the stored text is never trusted to parse.

// A `logs` row. eventName, argsJson and decodeError are null when NULL (or not read).
struct StoredLog
{
    QString blockHash; // compared with the header by the audit, not here
    QString address;
    QStringList topics;
    QString data;
    QString txHash;
    QVariant eventName;
    QVariant argsJson;
    QVariant decodeError;
};

// A `transfer_events` row.
struct StoredTransfer
{
    QString contract;
    QString from;
    QString to;
    QString value;
};

// Which of address, topics, data, tx_hash differ.
QStringList differingLogFields(const StoredLog& stored, const chain::LogEntry& log);

// Which of contract, from, to, value differ from the ERC-20 Transfer the log decodes to
// (a log that is no Transfer has no transfer row: BlockComparison counts that). `detail`
// gets "stored 12345, the log's 1000" when the value differs.
QStringList differingTransferFields(const StoredTransfer& stored, const chain::LogEntry& log,
                                    QString* detail = nullptr);
// The same against the Transfer the log was decoded to.
QStringList differingTransferFields(const StoredTransfer& stored, const indexer::Transfer& t,
                                    QString* detail = nullptr);

// Which of event_name, args_json differ from the log decoded with `registry` (the ABI the
// environment was indexed with). A log the indexer kept raw because its decoded arguments
// passed a budget carries an "ABI:" decode_error and no args_json: not a difference.
QStringList differingDecodedFields(const StoredLog& stored, const chain::LogEntry& log,
                                   const abi::EventRegistry& registry);

} // namespace forkscope::audit
