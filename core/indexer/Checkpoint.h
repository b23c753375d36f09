#pragma once

#include "chain/Address.h"
#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::indexer {

// A verifiable claim: every block from startBlock to `number` has been processed, without
// gap, on the branch whose block `number` has hash `hash`.
struct Checkpoint
{
    std::uint64_t number = 0;
    chain::Hash32 hash;
    std::uint64_t startBlock = 0;
    QString policyVersion;
    int generation = 0;
    QString verifiedAt; // when the hash was last confirmed against the node (UTC ISO)
    // The contracts whose logs the claim covers (contractSetText); empty for a checkpoint
    // written before schema v3, which did not record them.
    QString contracts;
};

// A contract set as stored with a checkpoint: lowercase 0x addresses, sorted, one space
// apart, then each factory's rule (wire::FactorySource::ruleText: its children are part of
// the set). The claim "every matching log up to the checkpoint" is only true for this set.
QString contractSetText(const QList<chain::Address>& contracts,
                        const QStringList& factoryRules = {});
// How `now` differs from `had` (both contractSetText): "added X, Y; removed Z".
QString contractSetChange(const QString& had, const QString& now);
// Why a run that leaves the contracts `left` out of an environment indexing `had` is
// refused: the same line whichever store notices first.
QString contractsLeftOutMessage(const QString& environmentId, const QStringList& had,
                                const QStringList& left);
// Why a run naming the contracts `now` is refused on an environment that indexes `had`
// (both contractSetText): the same line whichever store notices first.
QString contractSetChangedMessage(const QString& environmentId, const QString& had,
                                  const QString& now);

} // namespace forkscope::indexer
