// SPDX-License-Identifier: GPL-2.0
/*
 * ksweep_i2c_bind: creates the I2C client of an emulated chip with its interrupt, which the
 * sysfs new_device file cannot pass. Written for ksweep's validation guest (qemu/init.sh), built
 * against the guest kernel's own build like the drivers under test (docs/cr50.md).
 *
 *   insmod ksweep_i2c_bind.ko adapter=N type=cr50 addr=0x50
 *
 * The chip's interrupt line reaches the guest as MSI-X vector 0 of QEMU's ivshmem-doorbell
 * device, whose server is ksweep-tpmd: it writes the vector's eventfd each time the chip pulses
 * its line. This module is the PCI driver of that device; it enables the vector and gives its
 * Linux IRQ to the client, whose driver requests it as its own.
 */
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/string.h>

static int adapter = -1;
module_param(adapter, int, 0444);
MODULE_PARM_DESC(adapter, "number of the I2C adapter (i2c-N)");

static char *type = "";
module_param(type, charp, 0444);
MODULE_PARM_DESC(type, "the client's name, which its driver matches");

static ushort addr;
module_param(addr, ushort, 0444);
MODULE_PARM_DESC(addr, "7-bit address");

static struct i2c_client *client;

static int ksweep_i2c_bind_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct i2c_board_info info = {};
	struct i2c_adapter *adap;
	int rc;

	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	pci_set_master(pdev); /* MSI-X messages are the device's memory writes */
	rc = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (rc < 0)
		return rc;
	strscpy(info.type, type, sizeof(info.type));
	info.addr = addr;
	info.irq = pci_irq_vector(pdev, 0);
	adap = i2c_get_adapter(adapter);
	if (!adap) {
		pci_free_irq_vectors(pdev);
		return -ENODEV;
	}
	client = i2c_new_client_device(adap, &info);
	i2c_put_adapter(adap);
	if (IS_ERR(client)) {
		rc = PTR_ERR(client);
		client = NULL;
		pci_free_irq_vectors(pdev);
		return rc;
	}
	dev_info(&pdev->dev, "%s at 0x%02x on i2c-%d, irq %d (MSI-X vector 0)\n", type, addr,
		 adapter, info.irq);
	return 0;
}

static void ksweep_i2c_bind_remove(struct pci_dev *pdev)
{
	i2c_unregister_device(client);
	client = NULL;
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id ksweep_i2c_bind_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) }, /* ivshmem */
	{}
};

static struct pci_driver ksweep_i2c_bind_driver = {
	.name = "ksweep_i2c_bind",
	.id_table = ksweep_i2c_bind_ids,
	.probe = ksweep_i2c_bind_probe,
	.remove = ksweep_i2c_bind_remove,
};

static int __init ksweep_i2c_bind_init(void)
{
	int rc;

	if (!type[0] || addr < 0x08 || addr > 0x77 || adapter < 0)
		return -EINVAL;
	rc = pci_register_driver(&ksweep_i2c_bind_driver);
	if (rc)
		return rc;
	/* Probing is synchronous: no client now means no doorbell, or no adapter. */
	if (!client) {
		pci_unregister_driver(&ksweep_i2c_bind_driver);
		return -ENODEV;
	}
	return 0;
}

static void __exit ksweep_i2c_bind_exit(void)
{
	pci_unregister_driver(&ksweep_i2c_bind_driver);
}

module_init(ksweep_i2c_bind_init);
module_exit(ksweep_i2c_bind_exit);
MODULE_DESCRIPTION("ksweep: an I2C client whose interrupt is an ivshmem doorbell's MSI-X vector");
MODULE_LICENSE("GPL");
