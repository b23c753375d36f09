#pragma once

// The PDF report's page flow: fonts and sizes at the writer's resolution, and Flow, a
// vertical flow of text, tables and images over A4 pages that breaks pages by row and
// draws the footer. Only the PDF writers (ReportPdfWriter, LabRunPdfWriter) include it.
#include "Palette.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QTextOption>

namespace forkscope::ui::pdf {

constexpr int kDpi = 300;

inline double pt(double points)
{
    return points * kDpi / 72.0;
}

inline const QColor kGreen = Palette::print(Palette::Tone::Good);
inline const QColor kRed = Palette::print(Palette::Tone::Bad);
inline const QColor kGrey = Palette::print(Palette::Tone::Muted);

inline QFont sans(double size, bool bold = false)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPointSizeF(size);
    f.setBold(bold);
    return f;
}

inline QFont mono(double size)
{
    QFont f(QStringLiteral("DejaVu Sans Mono"));
    f.setStyleHint(QFont::Monospace);
    f.setPointSizeF(size);
    return f;
}

struct Column
{
    QString title;
    double weight = 1; // share of the width left after the fitted columns
    bool fit = false;  // as wide as its widest cell, never wrapped (hashes stay whole)
    bool monospace = false;
};

struct Cell
{
    QString text;
    QColor color = Qt::black;
};

// A vertical flow of blocks over A4 pages: starts a new page (with the footer on the old
// one) whenever the next block does not fit, so long tables paginate by row.
class Flow
{
public:
    Flow(QPdfWriter& writer, QPainter& painter, QString footer)
        : m_writer(writer), m_p(painter), m_footer(std::move(footer))
    {
        const QRect page = m_writer.pageLayout().paintRectPixels(kDpi);
        m_width = page.width();
        m_bottom = page.height() - pt(18); // room for the footer
    }

    double width() const { return m_width; }

    void newPage()
    {
        drawFooter();
        m_writer.newPage();
        ++m_page;
        m_y = 0;
    }

    void ensure(double height)
    {
        if (m_y > 0 && m_y + height > m_bottom)
            newPage();
    }

    void space(double height) { m_y += height; }

    void finish() { drawFooter(); }

    void text(const QString& s, const QFont& font, const QColor& color = Qt::black,
              double indent = 0)
    {
        m_p.setFont(font);
        const QRectF box(indent, 0, m_width - indent, 1e6);
        const double h = m_p.boundingRect(box, s, wrapping()).height();
        ensure(h);
        m_p.setPen(color);
        m_p.drawText(QRectF(indent, m_y, m_width - indent, h), s, wrapping());
        m_y += h + pt(2);
    }

    void heading(const QString& s)
    {
        ensure(pt(60)); // never leave a heading alone at the bottom of a page
        space(pt(8));
        text(s, sans(14, true));
        m_p.setPen(QPen(kGrey, pt(0.5)));
        m_p.drawLine(QPointF(0, m_y), QPointF(m_width, m_y));
        space(pt(6));
    }

    // A coloured mark and a line of text: the verdict, readable in black and white too.
    void verdict(const QString& s, const QColor& color)
    {
        m_p.setFont(sans(11, true));
        const double markW = pt(10);
        const QRectF box(markW + pt(6), 0, m_width - markW - pt(6), 1e6);
        const double h = std::max(pt(14), m_p.boundingRect(box, s, wrapping()).height());
        ensure(h);
        m_p.fillRect(QRectF(0, m_y + pt(2), markW, h - pt(4)), color);
        m_p.setPen(color.darker(130));
        m_p.drawText(QRectF(box.left(), m_y, box.width(), h), s, wrapping());
        m_y += h + pt(4);
    }

    void image(const QImage& img, double maxHeight)
    {
        if (img.isNull())
            return;
        double w = m_width;
        double h = w * img.height() / std::max(1, img.width());
        if (h > maxHeight) {
            w *= maxHeight / h;
            h = maxHeight;
        }
        ensure(h);
        m_p.drawImage(QRectF((m_width - w) / 2, m_y, w, h), img);
        m_y += h + pt(6);
    }

    // A vector picture `height` high across the page: draw(painter, its rectangle).
    template <typename Draw> void drawing(double height, Draw&& draw)
    {
        ensure(height);
        const QRectF box(0, m_y, m_width, height);
        m_p.save();
        m_p.setClipRect(box);
        draw(m_p, box);
        m_p.restore();
        m_p.setPen(QPen(kGrey, pt(0.5)));
        m_p.drawRect(box);
        m_y += height + pt(6);
    }

    void table(const QList<Column>& columns, const QList<QList<Cell>>& rows, double fontSize = 7.5)
    {
        const QFont body = sans(fontSize);
        const QFont code = mono(fontSize);
        const QFont head = sans(fontSize, true);
        const double pad = pt(2);

        // Widths: fitted columns take what their widest cell needs; the rest share by weight.
        QList<double> widths(columns.size(), 0);
        double fixed = 0;
        double weights = 0;
        for (qsizetype c = 0; c < columns.size(); ++c) {
            if (!columns[c].fit) {
                weights += columns[c].weight;
                continue;
            }
            double w = QFontMetricsF(head, &m_writer).horizontalAdvance(columns[c].title);
            const QFontMetricsF fm(columns[c].monospace ? code : body, &m_writer);
            for (const auto& row : rows)
                if (c < row.size())
                    w = std::max(w, fm.horizontalAdvance(row[c].text));
            widths[c] = w + 2 * pad + pt(1);
            fixed += widths[c];
        }
        const double rest = std::max(pt(30), m_width - fixed);
        for (qsizetype c = 0; c < columns.size(); ++c)
            if (!columns[c].fit)
                widths[c] = rest * columns[c].weight / std::max(weights, 1e-9);

        const auto rowHeight = [&](const QList<Cell>& row, bool header) {
            double h = 0;
            for (qsizetype c = 0; c < columns.size(); ++c) {
                m_p.setFont(header ? head : (columns[c].monospace ? code : body));
                const QString s = header ? columns[c].title : row.value(c).text;
                const QRectF box(0, 0, widths[c] - 2 * pad, 1e6);
                h = std::max(h, m_p.boundingRect(box, s, wrapping(columns[c].fit)).height());
            }
            return h + 2 * pad;
        };
        const auto drawRow = [&](const QList<Cell>& row, bool header) {
            const double h = rowHeight(row, header);
            if (header)
                m_p.fillRect(QRectF(0, m_y, m_width, h), QColor(0xee, 0xee, 0xee));
            double x = 0;
            for (qsizetype c = 0; c < columns.size(); ++c) {
                m_p.setFont(header ? head : (columns[c].monospace ? code : body));
                m_p.setPen(header ? QColor(Qt::black) : row.value(c).color);
                m_p.drawText(QRectF(x + pad, m_y + pad, widths[c] - 2 * pad, h - 2 * pad),
                             header ? columns[c].title : row.value(c).text,
                             wrapping(columns[c].fit));
                x += widths[c];
            }
            m_p.setPen(QPen(QColor(0xcc, 0xcc, 0xcc), pt(0.4)));
            m_p.drawLine(QPointF(0, m_y + h), QPointF(m_width, m_y + h));
            m_y += h;
        };

        ensure(rowHeight({}, true) + (rows.isEmpty() ? 0 : rowHeight(rows.first(), false)));
        drawRow({}, true);
        for (const auto& row : rows) {
            const double h = rowHeight(row, false);
            if (m_y + h > m_bottom) {
                newPage();
                drawRow({}, true); // the header again on every page of the table
            }
            drawRow(row, false);
        }
        m_y += pt(6);
    }

private:
    static QTextOption wrapping(bool noWrap = false)
    {
        QTextOption o(Qt::AlignLeft | Qt::AlignTop);
        o.setWrapMode(noWrap ? QTextOption::NoWrap : QTextOption::WrapAtWordBoundaryOrAnywhere);
        return o;
    }

    void drawFooter()
    {
        m_p.setFont(sans(7));
        m_p.setPen(kGrey);
        m_p.drawText(QRectF(0, m_bottom + pt(6), m_width, pt(12)), Qt::AlignLeft | Qt::AlignTop,
                     m_footer + QStringLiteral(" · page %1").arg(m_page));
    }

    QPdfWriter& m_writer;
    QPainter& m_p;
    QString m_footer;
    double m_width = 0;
    double m_bottom = 0;
    double m_y = 0;
    int m_page = 1;
};

} // namespace forkscope::ui::pdf
