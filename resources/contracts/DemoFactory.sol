// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

// A minimal factory for Forkscope's tests of factory sources: every createPair deploys a
// DemoPair token whose constructor mints (a Transfer logged before the factory's own
// PairCreated event, at a lower log index in the same transaction), then announces it with
// the event Uniswap V2's factory emits.
contract DemoPair {
    address public immutable factory;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address owner, uint256 supply) {
        factory = msg.sender;
        totalSupply = supply;
        balanceOf[owner] = supply;
        emit Transfer(address(0), owner, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    // `count` transfers from the caller to holders 0x..100000 + ((offset + i) % holders),
    // values 1..7, like DemoToken.spray.
    function spray(uint256 count, uint256 offset, uint256 holders) external {
        for (uint256 i = 0; i < count; i++) {
            address to = address(uint160(0x100000 + ((offset + i) % holders)));
            uint256 value = 1 + (i % 7);
            require(balanceOf[msg.sender] >= value, "balance");
            balanceOf[msg.sender] -= value;
            balanceOf[to] += value;
            emit Transfer(msg.sender, to, value);
        }
    }
}

contract DemoFactory {
    address[] public allPairs;

    event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

    // The pair's supply goes to the caller.
    function createPair(address token0, address token1, uint256 supply)
        external
        returns (address pair)
    {
        pair = address(new DemoPair(msg.sender, supply));
        allPairs.push(pair);
        emit PairCreated(token0, token1, pair, allPairs.length);
    }

    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }
}
