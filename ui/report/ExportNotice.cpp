#include "ExportNotice.h"
#include "widgets/ElidedLabel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QToolButton>
#include <QUrl>

namespace forkscope::ui {

ExportNotice::ExportNotice(QWidget* parent)
    : QWidget(parent), m_text(new ElidedLabel(this, Qt::ElideMiddle)),
      m_open(new QToolButton(this)), m_folder(new QToolButton(this))
{
    setObjectName(QStringLiteral("exportNotice"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    m_open->setText(tr("Open"));
    m_open->setObjectName(QStringLiteral("openExport"));
    m_folder->setText(tr("Show in folder"));
    m_folder->setObjectName(QStringLiteral("showExportFolder"));
    layout->addWidget(m_open);
    layout->addWidget(m_folder);
    connect(m_open, &QToolButton::clicked, this,
            [this] { emit openRequested(QUrl::fromLocalFile(m_path)); });
    connect(m_folder, &QToolButton::clicked, this,
            [this] { emit openRequested(QUrl::fromLocalFile(QFileInfo(m_path).absolutePath())); });
    hide();
}

void ExportNotice::showExported(const QString& path)
{
    m_path = QFileInfo(path).absoluteFilePath();
    m_text->setText(tr("Exported %1").arg(m_path));
    show();
}

QString ExportNotice::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace forkscope::ui
