// How the indexer finds that stored rows are no longer the chain, and undoes them: a head
// whose hash disagrees with the stored one, and logs the node no longer returns (absence,
// acted on only when the blocks' headers corroborate it).
#include "AbsenceAlertPlan.h"
#include "AbsenceCheck.h"
#include "AddedSource.h"
#include "ForkFinder.h"
#include "Indexer.h"
#include "IndexerErrors.h"
#include "ReorgReason.h"
#include "rpc/EthClient.h"

#include <QSet>
#include <algorithm>

namespace forkscope::indexer {

bool Indexer::rollBackIfHeadDisagrees(const Checkpoint& cp, std::uint64_t head)
{
    const auto stored = m_forkFinder->storedHash(head);
    if (!stored)
        return false; // below the first indexed block: nothing to compare
    const auto onNode = m_eth.blockByNumber(head);
    if (!onNode || onNode->hash == *stored)
        return false; // a lagging node: its head is a block we hold
    // The node serves block `head` with another hash than the one we stored: a reorg (an
    // anvil_rollback, say) that no new block has covered yet. Waiting for the node to
    // outgrow the checkpoint would keep non-canonical rows indefinitely.
    rollBack(cp, reorg_reason::kHashMismatch, head);
    return true;
}

bool Indexer::rollBack(const Checkpoint& cp, const QString& reason,
                       std::optional<std::uint64_t> nodeHead)
{
    dropPlan();
    // One writer decides reorgs: two deciding at once would each roll back the other.
    if (!leads()) {
        m_status.state = IndexerStatus::State::StandingBy;
        m_status.message = QStringLiteral("block %1 is no longer the node's (%2): the writer "
                                          "that follows the head of %3 rolls it back")
                               .arg(cp.number)
                               .arg(reason, m_config.environmentId);
        m_status.retryDelayMs = int(m_config.pollInterval.count());
        return false;
    }
    // Never roll back on another chain's word: a node swapped for another chain disagrees
    // with every stored hash.
    verifyNodeIdentity();
    const ForkPoint fork = m_forkFinder->find(cp, m_config.maxReorgDepth, nodeHead);
    if (fork.number && *fork.number >= cp.number)
        // The node now agrees with the checkpoint after all (a flapping or load-balanced
        // node answered two branches): nothing stored is wrong, and a depth-0 "reorg" is
        // never recorded.
        throw NodeInconsistentError(
            QStringLiteral("node %1 answered another hash for block %2 (%3), then the stored "
                           "one: an inconsistent node, not a reorg; nothing rolled back")
                .arg(m_eth.endpointText())
                .arg(cp.number)
                .arg(reason));
    const RollbackResult r = m_store.rollBack(cp, fork, reason);
    forgetChildrenAbove(r.forkBlock);
    ++m_status.reorgs;
    m_status.state = IndexerStatus::State::Reorged;
    m_status.checkpoint = fork.number;
    m_status.message = QStringLiteral("%1 at checkpoint %2: fork at %3, depth %4: %5")
                           .arg(reason)
                           .arg(r.oldCheckpoint)
                           .arg(r.forkBlock)
                           .arg(r.depth)
                           .arg(r.undoneText());
    // Not an error (the balances were planned on this connection instead), but a second
    // connection to the file failing is worth seeing.
    if (!r.planAsideFallback.isEmpty())
        m_status.message += QStringLiteral(" (a second connection could not plan the "
                                           "balances: %1)")
                                .arg(r.planAsideFallback);
    if (onReorg)
        onReorg(r, reason);
    return true;
}

bool Indexer::recheckForAbsence(const Checkpoint& cp)
{
    const auto window = absenceWindow(m_config.absenceWindow, cp.startBlock, cp.number);
    QList<chain::Address> watched = watchedAddresses();
    // An added contract's rows (an added factory's children's) are stored too, up to its own
    // checkpoint: asked with the others, or they would look absent.
    if (m_status.sourcesPending > 0) {
        QList<chain::Address> pendingFactories;
        for (const AddedSource& s : m_store.addedSources()) {
            if (!watched.contains(s.address))
                watched.append(s.address);
            if (!s.factoryRule.isEmpty() && s.state == SourceState::Pending)
                pendingFactories.append(s.address);
        }
        if (!pendingFactories.isEmpty())
            for (const wire::ChildCreation& c : m_store.children())
                if (pendingFactories.contains(c.factory) && !watched.contains(c.child))
                    watched.append(c.child);
    }
    if (watched.isEmpty() || !window)
        return false;
    QSet<LogAt> held = m_store.storedLogs(window->first, window->second);
    // RpcException: the node is unavailable, not a reorg.
    const AbsenceFinding finding =
        checkForAbsence(m_eth, *window, watched, m_config.logCap, std::move(held),
                        [this](std::uint64_t n) { return m_forkFinder->storedHash(n); });
    if (!finding.blocks.isEmpty()) {
        ++m_status.absenceSuspicions; // loud and counted, whatever the headers say
        if (onAbsence)
            onAbsence(finding.blocks, finding.contradicted);
        if (finding.contradicted) {
            rollBack(cp, reorg_reason::kAbsence); // resolves the alerts of the blocks it removes
            return true;
        }
    }
    // Kept as an alert, so the app and the report say "data incomplete" until it is settled.
    const AbsenceAlertPlan plan = planAbsenceAlerts(*window, finding.blocks, m_store.openAlerts());
    m_store.resolveAlerts(plan.resolve, absenceLogsReturnedResolution());
    if (!plan.record.isEmpty())
        m_store.recordAlert(m_eth.endpointText(), plan.record.first(), plan.record.last(),
                            absenceAlertText(plan.record), QStringLiteral("absence"));
    return false;
}

} // namespace forkscope::indexer
