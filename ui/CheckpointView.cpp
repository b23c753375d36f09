#include "CheckpointView.h"
#include "engine/EngineApi.h"

#include <QFormLayout>
#include <QLabel>

namespace forkscope::ui {

CheckpointView::CheckpointView(engine::EngineApi* host, QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("checkpointView"));
    auto* form = new QFormLayout(this);
    for (const auto& [key, label] : QList<std::pair<QString, QString>>{
             {QStringLiteral("environment"), tr("Environment")},
             {QStringLiteral("chain"), tr("Chain id")},
             {QStringLiteral("source"), tr("Source")},
             {QStringLiteral("number"), tr("Checkpoint")},
             {QStringLiteral("hash"), tr("Hash")},
             {QStringLiteral("policy"), tr("Policy version")},
             {QStringLiteral("generation"), tr("Generation")},
             {QStringLiteral("verified"), tr("Hash re-verified at")},
             {QStringLiteral("refusals"), tr("Commits refused (compare-and-swap)")}}) {
        auto* value = new QLabel(QStringLiteral("-"), this);
        value->setObjectName(QStringLiteral("checkpoint_") + key);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(label, value);
        m_fields.insert(key, value);
    }
    connect(host, &engine::EngineApi::statusAvailable, this, &CheckpointView::apply);
}

QString CheckpointView::field(const QString& key) const
{
    const QLabel* l = m_fields.value(key);
    return l ? l->text() : QString();
}

void CheckpointView::set(const QString& key, const QString& text)
{
    m_fields.value(key)->setText(text);
}

void CheckpointView::apply(const engine::EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    set(QStringLiteral("environment"), s.environmentId);
    set(QStringLiteral("chain"), s.chainId ? QString::number(*s.chainId) : tr("unknown"));
    set(QStringLiteral("source"), QStringLiteral("default"));
    // Number and hash from one stored row: the live number can be a block past the row read
    // last, and a hash shown beside a number it is not the hash of would be a false pair.
    // Before the first read the live number stands alone.
    const std::optional<quint64> number = s.storedCheckpoint ? s.storedCheckpoint : s.checkpoint;
    set(QStringLiteral("number"), number ? QString::number(*number) : tr("nothing indexed yet"));
    set(QStringLiteral("hash"),
        s.storedCheckpoint && !s.checkpointHash.isEmpty() ? s.checkpointHash : QStringLiteral("-"));
    set(QStringLiteral("policy"), s.policyVersion);
    set(QStringLiteral("generation"), QString::number(s.generation));
    set(QStringLiteral("verified"), s.verifiedAt.isEmpty() ? tr("not yet") : s.verifiedAt);
    // Every writer's refusals, this indexer's too: a second writer racing it (Lab > Second
    // writer) is refused, and so is this one when the other won a block.
    QString refusals = tr("this indexer: %1").arg(s.checkpointConflicts);
    if (s.secondWriterRunning || s.secondWriterCommits > 0 || s.secondWriterRefusals > 0)
        refusals += tr("; second writer: %1 (of %2 blocks it committed)%3")
                        .arg(s.secondWriterRefusals)
                        .arg(s.secondWriterCommits)
                        .arg(s.secondWriterRunning ? tr(", racing now") : QString());
    set(QStringLiteral("refusals"), refusals);
}

} // namespace forkscope::ui
