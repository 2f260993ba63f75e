// SPDX-License-Identifier: GPL-2.0
/*
 * ksweep_i2c_bind: creates the I2C client of an emulated chip with its interrupt, which the
 * sysfs new_device file cannot pass. Written for ksweep's validation guest (qemu/init.sh), built
 * against the guest kernel's own build like the drivers under test (docs/cr50.md).
 *
 *   insmod ksweep_i2c_bind.ko adapter=N type=cr50 addr=0x50 gpio_line=0
 *
 * The interrupt is line gpio_line of the virtio-gpio controller (the only GPIO chip of the
 * guest; its label is its virtio device's name), as gpiod_to_irq() maps it: the client's driver
 * requests it with its own trigger type.
 */
#include <linux/gpio.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/i2c.h>
#include <linux/module.h>
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

static int gpio_line = -1;
module_param(gpio_line, int, 0444);
MODULE_PARM_DESC(gpio_line, "line of the virtio-gpio controller carrying the interrupt");

/* Global GPIO numbers are dynamic (from 512 since 6.2, below it before): look. */
#define KSWEEP_MAX_GPIO 2048

static struct i2c_client *client;

static int ksweep_virtio_gpio_irq(int line, const char **chip_label)
{
	unsigned int n;

	for (n = 0; n < KSWEEP_MAX_GPIO; n++) {
		struct gpio_desc *desc = gpio_to_desc(n);
		struct gpio_chip *chip;

		if (!desc)
			continue;
		chip = gpiod_to_chip(desc);
		if (!chip || !chip->label || strncmp(chip->label, "virtio", 6) ||
		    (int)n - chip->base != line)
			continue;
		*chip_label = chip->label;
		return gpiod_to_irq(desc);
	}
	return -ENODEV;
}

static int __init ksweep_i2c_bind_init(void)
{
	struct i2c_board_info info = {};
	struct i2c_adapter *adap;
	const char *chip_label = "none";

	if (!type[0] || addr < 0x08 || addr > 0x77 || gpio_line < 0)
		return -EINVAL;
	strscpy(info.type, type, sizeof(info.type));
	info.addr = addr;
	info.irq = ksweep_virtio_gpio_irq(gpio_line, &chip_label);
	if (info.irq <= 0) {
		pr_err("ksweep_i2c_bind: no interrupt on virtio-gpio line %d (%d)\n",
		       gpio_line, info.irq);
		return info.irq < 0 ? info.irq : -ENODEV;
	}
	adap = i2c_get_adapter(adapter);
	if (!adap) {
		pr_err("ksweep_i2c_bind: no adapter i2c-%d\n", adapter);
		return -ENODEV;
	}
	client = i2c_new_client_device(adap, &info);
	i2c_put_adapter(adap);
	if (IS_ERR(client))
		return PTR_ERR(client);
	pr_info("ksweep_i2c_bind: %s at 0x%02x on i2c-%d, irq %d (%s line %d)\n",
		type, addr, adapter, info.irq, chip_label, gpio_line);
	return 0;
}

static void __exit ksweep_i2c_bind_exit(void)
{
	i2c_unregister_device(client);
}

module_init(ksweep_i2c_bind_init);
module_exit(ksweep_i2c_bind_exit);
MODULE_DESCRIPTION("ksweep: an I2C client with its interrupt on a virtio-gpio line");
MODULE_LICENSE("GPL");
