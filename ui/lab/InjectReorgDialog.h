#pragma once

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace forkscope::ui {

// Lab > Inject reorg...: depth and what happens to the replaced blocks' transactions.
class InjectReorgDialog : public QDialog
{
    Q_OBJECT
public:
    explicit InjectReorgDialog(QWidget* parent = nullptr);
    int depth() const;
    int txMode() const; // lab::ReorgTxMode
    void setDepth(int depth);
    void setTxMode(int mode);

private:
    QSpinBox* m_depth;
    QComboBox* m_mode;
};

} // namespace forkscope::ui
