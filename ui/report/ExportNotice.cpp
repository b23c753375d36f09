#include "ExportNotice.h"
#include "widgets/ElidedLabel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
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
    layout->setSpacing(2);
    // "Exported <file>": the file's name is the Open button, the folder an icon beside it,
    // so the notice is short enough to stay whole next to the status bar's other fields.
    auto* exported = new QLabel(tr("Exported"), this);
    layout->addWidget(exported);
    layout->addWidget(m_open);
    layout->addWidget(m_folder);
    m_text->hide(); // the whole sentence, for text() and the accessible name
    m_open->setObjectName(QStringLiteral("openExport"));
    m_open->setAutoRaise(true);
    m_open->setCursor(Qt::PointingHandCursor);
    m_open->setStyleSheet(QStringLiteral("QToolButton { color: palette(link); }"));
    m_folder->setObjectName(QStringLiteral("showExportFolder"));
    m_folder->setAutoRaise(true);
    m_folder->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    m_folder->setToolTip(tr("Show in folder"));
    m_folder->setAccessibleName(tr("Show in folder"));
    connect(m_open, &QToolButton::clicked, this,
            [this] { emit openRequested(QUrl::fromLocalFile(m_path)); });
    connect(m_folder, &QToolButton::clicked, this,
            [this] { emit openRequested(QUrl::fromLocalFile(QFileInfo(m_path).absolutePath())); });
    hide();
}

void ExportNotice::showExported(const QString& path)
{
    m_path = QFileInfo(path).absoluteFilePath();
    const QString name = QFileInfo(m_path).fileName();
    m_open->setText(name);
    m_open->setToolTip(tr("Open %1").arg(m_path));
    m_text->setText(tr("Exported %1").arg(name));
    m_text->setToolTip(m_path);
    show();
}

QString ExportNotice::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace forkscope::ui
