#include "forktree/ForkTreeExport.h"
#include "forktree/ForkTreePainter.h"

#include <QFile>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

namespace forkscope::ui {

namespace {

bool exportFailed(QString* error, const QString& text)
{
    if (error)
        *error = text;
    return false;
}

} // namespace

bool exportForkTreePng(const QString& path, const QSize& size,
                       const forktree::ForkTreeLayout& layout, const ForkTreeViewport& view,
                       QString* error)
{
    if (size.isEmpty())
        return exportFailed(error, QStringLiteral("nothing to export: the tree has no size"));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        ForkTreePainter::paint(p, QRectF(QPointF(0, 0), QSizeF(size)), layout, view);
    }
    QImageWriter writer(path, "png");
    if (!writer.write(image))
        return exportFailed(
            error, QStringLiteral("could not write %1: %2 (choose a folder you can write to)")
                       .arg(path, writer.errorString()));
    return true;
}

bool exportForkTreeSvg(const QString& path, const QSize& size,
                       const forktree::ForkTreeLayout& layout, const ForkTreeViewport& view,
                       QString* error)
{
    if (size.isEmpty())
        return exportFailed(error, QStringLiteral("nothing to export: the tree has no size"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return exportFailed(
            error, QStringLiteral("could not write %1: %2 (choose a folder you can write to)")
                       .arg(path, file.errorString()));
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(QStringLiteral("Fork tree"));
    svg.setDescription(QStringLiteral("Forkscope fork tree, blocks %1 to %2")
                           .arg(layout.numberAt(view.left))
                           .arg(layout.numberAt(view.right(QRectF(QPointF(0, 0), QSizeF(size))))));
    {
        QPainter p(&svg);
        ForkTreePainter::paint(p, QRectF(QPointF(0, 0), QSizeF(size)), layout, view);
    }
    file.close();
    if (file.error() != QFileDevice::NoError)
        return exportFailed(error,
                            QStringLiteral("could not write %1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace forkscope::ui
