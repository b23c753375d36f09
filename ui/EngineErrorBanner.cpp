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
      m_retry(new QPushButton(tr("Retry"), this))
{
    setObjectName(QStringLiteral("engineErrorBanner"));
    setStyleSheet(Palette::bannerStyle(objectName()));
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
    for (QPushButton* b : {m_chooseDatabase, m_settings, m_retry})
        layout->addWidget(b);
    connect(m_chooseDatabase, &QPushButton::clicked, this,
            &EngineErrorBanner::chooseDatabaseRequested);
    connect(m_settings, &QPushButton::clicked, this, &EngineErrorBanner::settingsRequested);
    connect(m_retry, &QPushButton::clicked, this, &EngineErrorBanner::retryRequested);
    hide();
}

void EngineErrorBanner::setState(const engine::DisplayState& state)
{
    if (state.kind == Kind::Failed) {
        m_text->setText(tr("FAILED - %1. Nothing is being indexed.")
                            .arg(state.reason.isEmpty() ? tr("no reason given") : state.reason));
    } else if (state.kind == Kind::NodeUnreachable) {
        m_text->setText(tr("NODE UNREACHABLE - %1. Nothing is indexed until it answers; what "
                           "is stored is kept.")
                            .arg(state.reason.isEmpty() ? tr("no answer") : state.reason));
    } else {
        hide();
        return;
    }
    // A node that does not answer is not the database's fault.
    m_chooseDatabase->setVisible(state.kind == Kind::Failed);
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
