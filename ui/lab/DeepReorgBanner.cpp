#include "DeepReorgBanner.h"
#include "Palette.h"
#include "ResetConfirm.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace forkscope::ui {

DeepReorgBanner::DeepReorgBanner(engine::EngineApi* host, QWidget* parent)
    : QFrame(parent), m_host(host), m_text(new QLabel(this)), m_raise(new QPushButton(this)),
      m_reset(new QPushButton(tr("Reset the environment"), this))
{
    setObjectName(QStringLiteral("deepReorgBanner"));
    setStyleSheet(Palette::bannerStyle(objectName()));
    m_text->setWordWrap(true);
    auto* row = new QHBoxLayout(this);
    row->addWidget(m_text, 1);
    row->addWidget(m_raise);
    row->addWidget(m_reset);
    m_reset->setToolTip(tr("Archive this environment (every row kept) and index a fresh "
                           "chain in a new one"));
    connect(m_raise, &QPushButton::clicked, this, [this] {
        if (m_proposed > 0)
            m_host->raiseReorgLimit(m_proposed);
    });
    // The same question as the Lab menu's Reset: a reset archives the environment.
    connect(m_reset, &QPushButton::clicked, this, [this] {
        if (confirmLabReset(this, m_environment))
            m_host->resetLab();
    });
    connect(host, &engine::EngineApi::statusAvailable, this, &DeepReorgBanner::apply);
    hide();
}

QString DeepReorgBanner::text() const
{
    return m_text->text();
}

void DeepReorgBanner::apply(const engine::EngineStatus& s)
{
    if (!engine::deepReorgChoicePending(s)) {
        hide();
        return;
    }
    m_proposed = s.deepReorgLimit * 2;
    m_environment = s.environmentId;
    m_text->setText(
        tr("Indexing stopped: the chain changed deeper than the reorg limit of %1 "
           "below checkpoint %2. Nothing was deleted. Choose how to go on.")
            .arg(engine::text::count(qint64(s.deepReorgLimit), tr("block"), tr("blocks")))
            .arg(s.deepReorgCheckpoint));
    m_raise->setText(tr("Raise the limit to %1 and continue").arg(m_proposed));
    m_reset->setEnabled(s.managedDevnet);
    show();
}

} // namespace forkscope::ui
