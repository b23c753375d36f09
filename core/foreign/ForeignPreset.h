#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::foreign {

// The usual ERC-20 Transfer tables of other indexers, as an audit query (docs/audit.md
// shows each table's layout):
//   - Ponder: an onchainTable `transfer_event` (id = event.id, Ponder's 75-digit checkpoint,
//     which holds the block number and the log index; "from" and "to" as hex text; amount
//     as numeric), one contract per table.
//   - Subsquid: the squid's TypeORM table `transfer` (id = log.id, "<block, 10 digits>-<the
//     block hash's first 5 hex digits>-<log index, 6 digits>"; block_number, tx_hash,
//     "from", "to", amount as numeric), one contract per table.
enum class ForeignPreset { Ponder, Subsquid };

QStringList presetNames();
std::optional<ForeignPreset> presetNamed(const QString& name);
QString defaultTable(ForeignPreset preset);
// The query over `table` ("name" or "schema.name", letters, digits and '_'); empty when the
// name is not one.
QString presetQuery(ForeignPreset preset, const QString& table);

} // namespace forkscope::foreign
