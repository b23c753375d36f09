#pragma once

#include "Checkpoint.h"
#include "chain/Address.h"

#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::indexer {

// A contract (or a factory) added to an environment that was already indexed
// (docs/sources.md). Until its own backfill reaches the environment's checkpoint it is
// pending: its rows (and a factory's children's) are visible only up to its own checkpoint.
// Then it joins the environment's contract set, in one transaction, and the head is followed
// for it like for the others.
enum class SourceState { Pending, Joined, Archived };

QString sourceStateText(SourceState state);
// nullopt: not a state this build knows.
std::optional<SourceState> sourceStateFromText(const QString& text);

struct AddedSource
{
    chain::Address address;
    std::uint64_t startBlock = 0;
    // Where its backfill stands (number and hash only); nullopt: nothing backfilled yet.
    std::optional<Checkpoint> checkpoint;
    SourceState state = SourceState::Pending;
    // An added factory's rule (wire::FactorySource::ruleText); empty for a plain contract.
    QString factoryRule;

    // The word the environment's contract set records for it (contractSetText).
    QString setToken() const { return factoryRule.isEmpty() ? address.toHex() : factoryRule; }

    // The block its backfill fetches next.
    std::uint64_t nextBlock() const { return checkpoint ? checkpoint->number + 1 : startBlock; }
};

} // namespace forkscope::indexer
