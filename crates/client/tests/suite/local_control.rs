//! `LocalControl` against the real local service in-process: the demo DNS provider, the clock
//! and reset over `/_local`, and its errors keeping the control plane's codes.

use chrono::TimeDelta;
use domain_desk_api::local::{DEMO_ZONES, NewZoneRecord, ZoneRecordType};
use domain_desk_client::{Error, LocalControl};

async fn started() -> (LocalControl, domain_desk_service::Running) {
    let running = domain_desk_test_support::start().await;
    let control = LocalControl::new(&format!("{}/", running.base_url())).expect("control");
    (control, running)
}

#[tokio::test]
async fn info_and_zones_come_from_the_service() {
    let (control, running) = started().await;
    assert_eq!(control.base_url(), running.base_url());
    let info = control.info().await.unwrap();
    assert_eq!(&info, running.info());
    let mut seeded: Vec<String> = DEMO_ZONES.iter().map(|zone| (*zone).to_owned()).collect();
    seeded.sort();
    assert_eq!(control.zones().await.unwrap(), seeded);
}

#[tokio::test]
async fn records_are_added_listed_and_deleted_and_a_zone_added_goes_away_with_a_reset() {
    let (control, _running) = started().await;
    let added = control
        .add_record(
            "example.net",
            &NewZoneRecord {
                name: "notes".into(),
                record_type: ZoneRecordType::Txt,
                value: "hello".into(),
                ttl: Some(300),
            },
        )
        .await
        .unwrap();
    let listed = control.records("example.net").await.unwrap();
    assert!(listed.records.iter().any(|record| record.id == added.id));
    control
        .delete_record("example.net", &added.id)
        .await
        .unwrap();
    let listed = control.records("example.net").await.unwrap();
    assert!(!listed.records.iter().any(|record| record.id == added.id));

    control.add_zone("Shop-Demo.com").await.unwrap();
    assert!(
        control
            .zones()
            .await
            .unwrap()
            .contains(&"shop-demo.com".to_owned())
    );
    control.reset().await.unwrap();
    assert!(
        !control
            .zones()
            .await
            .unwrap()
            .contains(&"shop-demo.com".to_owned())
    );
}

#[tokio::test]
async fn the_clock_moves_forward_and_changes_speed() {
    let (control, _running) = started().await;
    let before = control.clock().await.unwrap();
    let advanced = control.advance_clock(3600.0).await.unwrap();
    assert!(
        advanced.now >= before.now + TimeDelta::hours(1),
        "{before:?} {advanced:?}"
    );
    let faster = control.set_clock_speed(60.0).await.unwrap();
    assert_eq!(faster.speed, 60.0);
    assert_eq!(control.clock().await.unwrap().speed, 60.0);
}

#[tokio::test]
async fn refusals_keep_the_control_planes_code_and_bad_input_is_not_sent() {
    let (control, _running) = started().await;
    match control.records("nowhere.example").await {
        Err(Error::Control { code, message }) => {
            assert_eq!(code, "not_found", "{message}");
            assert!(message.contains("nowhere.example"), "{message}");
        }
        other => panic!("a 404 with its code, not {other:?}"),
    }
    for refused in [
        control.records("../reset").await.map(drop),
        control.delete_record("example.com", "a/b").await,
        control.set_clock_speed(-1.0).await.map(drop),
        control.advance_clock(f64::NAN).await.map(drop),
    ] {
        assert!(
            matches!(refused, Err(Error::InvalidInput(_))),
            "{refused:?}"
        );
    }
}

#[tokio::test]
async fn a_service_that_does_not_answer_is_a_network_error() {
    let (control, running) = started().await;
    let base_url = running.base_url();
    drop(control);
    running.shutdown().await.expect("the service stops");
    let gone = LocalControl::new(&base_url).unwrap();
    match gone.info().await {
        Err(Error::Control { code, .. }) => assert_eq!(code, "network"),
        other => panic!("a network error, not {other:?}"),
    }
}

/// The doctor's list of attached names: the demo's seeded live domain on a fresh service, then
/// the one domain a demo project attaches besides; every call went through the pool's queue
/// for that demo key.
#[tokio::test]
async fn the_attached_hostnames_come_from_every_demo_account_through_the_pool() {
    use domain_desk_api::{AddDomain, Plan};
    use domain_desk_client::{ClientConfig, ClientPool};
    use domain_desk_service::{ServiceSettings, Storage};
    let running = domain_desk_test_support::start_with(ServiceSettings {
        storage: Storage::Memory,
        // A stopped clock: the queue paces as if it ran in real time.
        clock_speed: 0.0,
        ..domain_desk_test_support::loopback_settings()
    })
    .await;
    let control = LocalControl::new(&running.base_url()).expect("control");
    let info = control.info().await.unwrap();
    let pool = ClientPool::new();
    assert_eq!(
        control
            .attached_hostnames(&info, &pool)
            .await
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        [domain_desk_service::world::renewal_demo::HOSTNAME]
    );
    assert_eq!(pool.len(), info.demo_keys.len(), "one queue per demo key");

    let pro = pool
        .client(
            ClientConfig::new(running.base_url(), info.demo_keys["pro"].as_str()).plan(Plan::Pro),
        )
        .unwrap();
    let project = pro.create_project("p").await.unwrap();
    pro.deploy(&project.id, None).await.unwrap();
    pro.add_domain(
        &project.id,
        &AddDomain {
            hostname: "www.example.com".into(),
            redirect_to: None,
        },
    )
    .await
    .unwrap();
    let attached = control.attached_hostnames(&info, &pool).await.unwrap();
    assert_eq!(
        attached.into_iter().collect::<Vec<_>>(),
        [
            domain_desk_service::world::renewal_demo::HOSTNAME,
            "www.example.com"
        ]
    );
    assert_eq!(pool.len(), info.demo_keys.len(), "the same queues again");

    running.shutdown().await.expect("the service stops");
    assert!(control.attached_hostnames(&info, &pool).await.is_err());
}
