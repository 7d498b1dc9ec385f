// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Strata",
    // The versions that have Synchronization's Mutex. Only Linux is built and
    // tested here; Apple platforms are written for (every Linux-only path is
    // behind #if) but not built by CI.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        // PostgreSQLStore: a separate product, so that a program using SQLite
        // stores only neither builds nor loads libpq.
        .library(name: "StrataPostgreSQL", targets: ["StrataPostgreSQL"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(name: "Strata", dependencies: ["CSQLite"]),
        .target(name: "StrataPostgreSQL", dependencies: ["Strata", "CSQLite", "CLibPQ"]),
        // A PostgreSQL server for the tests, the Cluster sample and the
        // benchmarks: the one STRATA_POSTGRESQL_URL names, or a throwaway one.
        .target(name: "ThrowawayPostgreSQL"),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: ["Strata", "StrataPostgreSQL", "ThrowawayPostgreSQL", "CSQLite", "CLibPQ"]
        ),
        .executableTarget(
            name: "Quickstart",
            dependencies: ["Strata"],
            path: "Samples/Quickstart"
        ),
        .executableTarget(
            name: "LiveList",
            dependencies: ["Strata"],
            path: "Samples/LiveList"
        ),
        .executableTarget(
            name: "Evolution",
            dependencies: ["Strata"],
            path: "Samples/Evolution"
        ),
        .executableTarget(
            name: "Importer",
            dependencies: ["Strata"],
            path: "Samples/Importer",
            resources: [.copy("people.json")]
        ),
        .executableTarget(
            name: "SharedStore",
            dependencies: ["Strata"],
            path: "Samples/SharedStore"
        ),
        .executableTarget(
            name: "Cluster",
            dependencies: ["Strata", "StrataPostgreSQL", "ThrowawayPostgreSQL"],
            path: "Samples/Cluster"
        ),
        // Built in release by .ci/run for the test that checks trap messages
        // survive optimization (Tests/StrataTests/Support/ReleaseTrapTests.swift).
        .executableTarget(
            name: "StrataTrapProbe",
            dependencies: ["Strata"],
            path: "Tests/TrapProbe"
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataPostgreSQL", "ThrowawayPostgreSQL", "CSQLite", "CLibPQ"]),
    ],
    swiftLanguageModes: [.v6]
)
