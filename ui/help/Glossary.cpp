#include "Glossary.h"

#include <QCoreApplication>

namespace forkscope::ui {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("Glossary", text);
}
} // namespace

const QList<GlossaryEntry>& glossary()
{
    static const QList<GlossaryEntry> entries{
        {tr("checkpoint"),
         tr("The highest block the indexer has stored with everything in it, and that block's "
            "hash. It moves in the same transaction as the data, so a crash never leaves data "
            "above it or a gap below it.")},
        {tr("cursor lag"),
         tr("How many blocks the checkpoint is behind the node's head. It is unknown while the "
            "node does not answer: an outage is not a lag.")},
        {tr("reorg"),
         tr("The chain replaced blocks the indexer had stored. Everything above the fork point "
            "is rolled back in one transaction and indexed again from the new chain.")},
        {tr("fork point"),
         tr("The highest stored block that is still on the node's chain: a rollback keeps it "
            "and removes everything above it.")},
        {tr("absence"),
         tr("A stored block the node no longer has at its height (not a different hash: "
            "nothing). Treated as a reorg, because data that silently disappears is the "
            "suspicious case.")},
        {tr("ready height"),
         tr("The highest block that enough watched nodes agree on (the ready ratio). Below it "
            "a block is not one provider's word.")},
        {tr("safe height"),
         tr("The highest block whose outbox rows may be delivered: the head minus the "
            "confirmations, and never above the ready height. Rows above it wait.")},
        {tr("confirmations"),
         tr("How many blocks must be built on top of a block before its side effects are "
            "delivered. More confirmations, fewer retractions after reorgs.")},
        {tr("outbox"),
         tr("The side effects of indexed events (webhook calls, JSON lines), stored with the "
            "data and delivered once per key after the safe height passes them. A delivered "
            "row that a reorg removes gets a retraction.")},
        {tr("data incomplete"),
         tr("A range a provider did not return whole (a truncated or contradicted reply). "
            "Nothing above it is indexed until it is repaired, and the window never shows "
            "green meanwhile.")},
        {tr("crash points"),
         tr("Places in the indexer where the lab can kill it on purpose (before commit, after "
            "commit, mid-rollback) to show that a restart loses, duplicates and invents "
            "nothing.")},
        {tr("invariants"),
         tr("The four promises of the database contract, checked against the node after each "
            "lab action: the stored chain links up, nothing above the checkpoint, no log "
            "missing or doubled, balances equal to the sum of transfers.")},
        {tr("environment"),
         tr("One indexing run against one chain: its data is kept apart by its id. A lab reset "
            "archives the environment and starts a new one; archived ones stay readable.")},
    };
    return entries;
}

QString glossaryMeaning(const QString& term)
{
    for (const GlossaryEntry& e : glossary())
        if (e.term.compare(term, Qt::CaseInsensitive) == 0)
            return e.meaning;
    return {};
}

QString explain(const QStringList& terms)
{
    QStringList parts;
    for (const QString& t : terms)
        parts << t + QStringLiteral(": ") + glossaryMeaning(t);
    return parts.join(QStringLiteral("\n\n"));
}

QString glossaryHtml()
{
    QString html = QStringLiteral("<h2>%1</h2><dl>").arg(tr("Glossary"));
    for (const GlossaryEntry& e : glossary())
        html += QStringLiteral("<dt><b>%1</b></dt><dd>%2</dd>")
                    .arg(e.term.toHtmlEscaped(), e.meaning.toHtmlEscaped());
    return html + QStringLiteral("</dl>");
}

QString gettingStartedHtml()
{
    return tr(
        "<h2>Getting started</h2>"
        "<p>On its defaults Forkscope starts a local devnet (anvil), deploys a demo "
        "token, sends it transfers and indexes them into a SQLite file. Within a second "
        "or two the four panels fill:</p>"
        "<ul>"
        "<li><b>Cursor lag</b>: the node's head, the checkpoint and the lag between "
        "them.</li>"
        "<li><b>Reorg events</b>: one bar per rollback; click a bar (or a row of the "
        "list) for what it removed.</li>"
        "<li><b>Outbox backlog</b>: side effects waiting for the safe height, and "
        "deliveries.</li>"
        "<li><b>Node health</b>: each watched node's head and state.</li>"
        "</ul>"
        "<p><b>Try it:</b> Lab &gt; Inject reorg rolls the chain back and mines another "
        "branch; the reorg panel shows the rollback and the verdict badge says whether "
        "the invariants still hold. Lab &gt; Crash the indexer... kills the indexer at a chosen "
        "point to show that a restart loses nothing. File &gt; Export checkpoint report "
        "(Ctrl+E) writes what the database proves as PDF, JSON or CSV.</p>"
        "<p><b>Your own node:</b> File &gt; Settings (Ctrl+,) takes an endpoint and the "
        "contracts to index, or start with <code>forkscope --rpc URL</code>. The same "
        "engine runs headless: <code>forkscope index</code>, <code>report</code>, "
        "<code>verify</code>.</p>"
        "<p>Alt+1 to Alt+7 bring the tabs below the charts to the front. Help &gt; "
        "Glossary explains the words the window uses.</p>");
}

} // namespace forkscope::ui
