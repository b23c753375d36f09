// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

// A minimal ERC-20 for Forkscope's lab, tests and benchmarks. Besides the standard
// transfer it can "spray" many Transfers in one transaction (to build large workloads
// quickly) and emit logs that claim to be a Transfer but do not decode, so the indexer's
// refusal to guess can be tested against real chain data.
contract DemoToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        _mint(msg.sender, supply);
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(allowance[from][msg.sender] >= value, "allowance");
        allowance[from][msg.sender] -= value;
        _move(from, to, value);
        return true;
    }

    function mint(address to, uint256 value) external {
        _mint(to, value);
    }

    // `count` transfers from the caller to holders 0x..100000 + ((offset + i) % holders),
    // values 1..7: deterministic, so tests can recompute balances independently.
    function spray(uint256 count, uint256 offset, uint256 holders) external {
        for (uint256 i = 0; i < count; i++) {
            address to = address(uint160(0x100000 + ((offset + i) % holders)));
            _move(msg.sender, to, 1 + (i % 7));
        }
    }

    // `count` transfers like spray, of the amounts payments have: 0.01 to 99.99 whole
    // tokens (`unit` is one whole token), spread by a fixed hash of the index, so the lab's
    // demo reads like a token in use while tests can still recompute every balance.
    function sprayAmounts(uint256 count, uint256 offset, uint256 holders, uint256 unit) external {
        for (uint256 i = 0; i < count; i++) {
            uint256 k = offset + i;
            address to = address(uint160(0x100000 + (k % holders)));
            _move(msg.sender, to, ((1 + ((k * 2654435761) % 9999)) * unit) / 100);
        }
    }

    // A log with the Transfer topic but only two topics (like a non-standard token).
    function emitTransferMissingTopic(address from, uint256 value) external {
        bytes32 topic = Transfer.selector;
        assembly {
            mstore(0, value)
            log2(0, 32, topic, from)
        }
    }

    // A log with the Transfer topics but 16 bytes of data instead of 32.
    function emitTransferShortData(address from, address to) external {
        bytes32 topic = Transfer.selector;
        assembly {
            mstore(0, 0x1234)
            log3(16, 16, topic, from, to)
        }
    }
}
