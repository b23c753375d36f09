#include "EngineErrorBanner.h"
#include "Palette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace forkscope::ui {

using Kind = engine::DisplayState::Kind;

EngineErrorBanner::EngineErrorBanner(QWidget* parent)
    : QFrame(parent), m_text(new QLabel(this)),
      m_chooseDatabase(new QPushButton(tr("Choose database..."), this)),
      m_settings(new QPushButton(tr("Settings..."), this)),
      m_retry(new QPushButton(tr("Retry"), this)),
      m_startDevnet(new QPushButton(tr("Start devnet"), this))
{
    setObjectName(QStringLiteral("engineErrorBanner"));
    setTone(engine::DisplayState::Tone::Bad);
    auto* layout = new QHBoxLayout(this);
    m_text->setObjectName(QStringLiteral("engineErrorText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text, 1);
    m_chooseDatabase->setObjectName(QStringLiteral("chooseDatabase"));
    m_chooseDatabase->setToolTip(tr("Open or create another database file and start again"));
    m_settings->setObjectName(QStringLiteral("settings"));
    m_settings->setToolTip(tr("Change the node, the contracts or the delivery sink"));
    m_retry->setObjectName(QStringLiteral("retry"));
    m_retry->setToolTip(tr("Start the engine again with the same settings"));
    m_startDevnet->setObjectName(QStringLiteral("startDevnet"));
    m_startDevnet->setToolTip(
        tr("Start the managed anvil again from its saved chain (Engine > Start devnet, Ctrl+D)"));
    for (QPushButton* b : {m_startDevnet, m_chooseDatabase, m_settings, m_retry})
        layout->addWidget(b);
    connect(m_chooseDatabase, &QPushButton::clicked, this,
            &EngineErrorBanner::chooseDatabaseRequested);
    connect(m_settings, &QPushButton::clicked, this, &EngineErrorBanner::settingsRequested);
    connect(m_retry, &QPushButton::clicked, this, &EngineErrorBanner::retryRequested);
    connect(m_startDevnet, &QPushButton::clicked, this, &EngineErrorBanner::startDevnetRequested);
    hide();
}

void EngineErrorBanner::setTone(engine::DisplayState::Tone tone)
{
    const QColor background = tone == engine::DisplayState::Tone::Bad
                                  ? Palette::dataIncomplete()
                                  : Palette::screen(Palette::Tone::Caution);
    setStyleSheet(QStringLiteral("#engineErrorBanner { background: %1; } "
                                 "#engineErrorBanner > QLabel { color: white; font-weight: bold; }")
                      .arg(background.name()));
}

void EngineErrorBanner::apply(const engine::EngineStatus& s)
{
    const engine::DisplayState state = engine::displayState(s);
    QString text;
    switch (state.kind) {
    case Kind::Failed:
        // One banner per stop: the deep-reorg banner names this one and offers its choices.
        if (engine::deepReorgChoicePending(s) && state.also.isEmpty()) {
            hide();
            return;
        }
        text = tr("FAILED - %1. Nothing is being indexed.")
                   .arg(state.reason.isEmpty() ? tr("no reason given") : state.reason);
        break;
    case Kind::NodeUnreachable:
        text = tr("NODE UNREACHABLE - %1. Nothing is indexed until it answers; what is stored "
                  "is kept.")
                   .arg(state.reason);
        break;
    case Kind::DevnetStopped:
        text = tr("DEVNET STOPPED - you stopped the managed anvil; its chain is kept. Nothing is "
                  "indexed until you start it again, and the checkpoint holds.");
        break;
    default:
        hide();
        return;
    }
    for (const QString& other : state.also)
        text += QStringLiteral("\n") + tr("Also: %1").arg(other);
    // A retry that ends where it began still shows it happened, and when.
    if (s.startAttempt > 1 && s.startedAt.isValid() && state.kind != Kind::DevnetStopped)
        text += QStringLiteral("\n") +
                tr("Started again at %1 (attempt %2).")
                    .arg(s.startedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")))
                    .arg(s.startAttempt);
    m_text->setText(text);
    setTone(state.tone());
    const bool devnet = state.kind == Kind::DevnetStopped;
    // A node that does not answer is not the database's fault.
    m_chooseDatabase->setVisible(state.kind == Kind::Failed);
    m_settings->setVisible(!devnet);
    m_retry->setVisible(!devnet);
    m_startDevnet->setVisible(devnet);
    show();
}

QString EngineErrorBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

QPushButton* EngineErrorBanner::button(const QString& name) const
{
    return findChild<QPushButton*>(name);
}

} // namespace forkscope::ui
